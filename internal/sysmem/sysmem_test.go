package sysmem

import "testing"

func TestParseMemInfo(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
		ok   bool
	}{
		{"MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   23494240 kB\n", 23494240 * 1024, true},
		{"MemTotal: 1 kB\n", 0, false},
		{"MemAvailable: x kB\n", 0, false},
	} {
		got, ok := ParseMemInfo(tc.text)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseMemInfo(%q) = %d, %v; want %d, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseCgroupLimit(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
		ok   bool
	}{
		{"max\n", 0, false},
		{"8589934592\n", 8 << 30, true},
		{"9223372036854771712\n", 0, false}, // v1 unlimited
		{"", 0, false},
	} {
		got, ok := ParseCgroupLimit(tc.text)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseCgroupLimit(%q) = %d, %v; want %d, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCgroupV2Path(t *testing.T) {
	p, ok := CgroupV2Path("12:cpu:/x\n0::/user.slice/a.scope\n")
	if !ok || p != "/user.slice/a.scope" {
		t.Errorf("got %q, %v", p, ok)
	}
	if _, ok := CgroupV2Path("12:memory:/x\n"); ok {
		t.Errorf("v1-only file gave a v2 path")
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"8G", 8 << 30, false},
		{"512M", 512 << 20, false},
		{"1.5GB", 3 << 29, false},
		{"2TiB", 2 << 40, false},
		{"123", 123, false},
		{"10k", 10 << 10, false},
		{"lots", 0, true},
		{"-1G", 0, true},
	} {
		got, err := ParseSize(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}
