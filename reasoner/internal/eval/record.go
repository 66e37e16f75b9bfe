package eval

import (
	"encoding/json"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Record is the JSON form of Materialisation.Record.
type Record struct {
	Version int `json:"version"`
	// Min is the threshold the materialisation applied.
	Min float64 `json:"min"`
	// Program is the canonical text of the rules then the facts, one
	// statement per line; Pos gives the position of each in its file.
	Program string        `json:"program"`
	Pos     []datalog.Pos `json:"pos"`
}

// EncodeRecord is the record of prog evaluated at threshold min.
func EncodeRecord(prog *datalog.Program, min float64) []byte {
	var b strings.Builder
	rec := Record{Version: 1, Min: min}
	for i := range prog.Rules {
		r := prog.Rules[i]
		r.Comment = ""
		b.WriteString(r.String())
		b.WriteByte('\n')
		rec.Pos = append(rec.Pos, r.Pos)
	}
	for i := range prog.Facts {
		f := &prog.Facts[i]
		b.WriteString(f.String())
		b.WriteByte('\n')
		rec.Pos = append(rec.Pos, f.Pos)
	}
	rec.Program = b.String()
	out, err := json.Marshal(rec)
	if err != nil {
		panic(err) // strings, numbers and positions always marshal
	}
	return out
}
