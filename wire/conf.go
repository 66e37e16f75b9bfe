package wire

import "strconv"

// Conf is a confidence as JSON: the shortest text that reads back as the
// same float32, the precision confidences are stored at (0.2887, never
// 0.28870001435279846), as drumql query prints it.
type Conf float64

// ConfText is the text of a confidence: the shortest that reads back as
// float32(c).
func ConfText(c float64) string {
	return strconv.FormatFloat(float64(float32(c)), 'g', -1, 32)
}

// MarshalJSON writes the confidence as ConfText does.
func (c Conf) MarshalJSON() ([]byte, error) { return []byte(ConfText(float64(c))), nil }
