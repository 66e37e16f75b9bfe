package sysmem

// ParseCap reads a memory cap as the commands take it: "off" for none
// (known false), "" for the memory available to the process (Available:
// known when it can be read), or a size (ParseSize) whose Limit names
// source as where it comes from. The error is ParseSize's.
func ParseCap(s, source string) (lim Limit, known bool, err error) {
	switch s {
	case "off":
		return Limit{}, false, nil
	case "":
		lim, known = Available()
		return lim, known, nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return Limit{}, false, err
	}
	return Limit{Bytes: n, Source: source}, true, nil
}
