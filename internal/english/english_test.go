package english

import (
	"math"
	"testing"
)

var pluralTests = []struct {
	n    int64
	want string
}{
	{math.MinInt64, "rules"},
	{-1, "rules"},
	{0, "rules"},
	{1, "rule"},
	{2, "rules"},
	{1000, "rules"},
	{math.MaxInt64, "rules"},
}

func TestPlural(t *testing.T) {
	for _, tt := range pluralTests {
		if got := Plural(tt.n, "rule", "rules"); got != tt.want {
			t.Errorf("Plural(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if tt.n == int64(int(tt.n)) {
			if got := Plural(int(tt.n), "rule", "rules"); got != tt.want {
				t.Errorf("Plural(int(%d)) = %q, want %q", tt.n, got, tt.want)
			}
		}
	}
	if got := Plural(1, "", "s"); got != "" {
		t.Errorf(`Plural(1, "", "s") = %q, want ""`, got)
	}
}

var thousandsTests = []struct {
	n    int64
	want string
}{
	{0, "0"},
	{7, "7"},
	{999, "999"},
	{1000, "1,000"},
	{1001, "1,001"},
	{12345, "12,345"},
	{999999, "999,999"},
	{1000000, "1,000,000"},
	{1234567890, "1,234,567,890"},
	{-1, "-1"},
	{-999, "-999"},
	{-1000, "-1,000"},
	{-123456, "-123,456"},
	{math.MaxInt64, "9,223,372,036,854,775,807"},
	{math.MinInt64, "-9,223,372,036,854,775,808"},
}

func TestThousands(t *testing.T) {
	for _, tt := range thousandsTests {
		if got := Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if tt.n == int64(int(tt.n)) {
			if got := Thousands(int(tt.n)); got != tt.want {
				t.Errorf("Thousands(int(%d)) = %q, want %q", tt.n, got, tt.want)
			}
		}
	}
}
