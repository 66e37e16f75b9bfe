package cluster

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRunRows(t *testing.T) {
	if rows := RunRows(nil, time.Now()); rows == nil || len(rows) != 0 {
		t.Errorf("RunRows(nil) = %#v, want an empty slice", rows)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
	now := created.Add(90*time.Minute + 1500*time.Millisecond)
	rows := RunRows([]RunInfo{{ID: "r0123456789ab", Created: created, Groups: 4, Done: 1, Queued: 3}}, now)
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"r0123456789ab","created":"2026-01-02T02:04:05Z","age_seconds":5401,"groups":4,"done":1,"queued":3}]`
	if string(b) != want {
		t.Errorf("JSON:\n %s\nwant %s", b, want)
	}
	var tb strings.Builder
	if err := WriteRunsTable(&tb, rows); err != nil {
		t.Fatal(err)
	}
	wantTable := "run            age      groups done  jobs queued\nr0123456789ab  1h30m1s  1/4          3\n"
	if tb.String() != wantTable {
		t.Errorf("table:\n%q\nwant\n%q", tb.String(), wantTable)
	}
}
