package jsonflags

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// decode decodes src as a configuration file is decoded.
func decode(t *testing.T, src string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(src)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// typeTests are flag values of each Go type, JSON values that match their
// type and values that do not, with the name of their type.
var typeTests = []struct {
	flag     any
	want     string
	good     []string
	bad      string
	badNamed string
}{
	{new(int), "a number", []string{"3", "-1", "18446744073709551615"}, `"3"`, "a string"},
	{0.5, "a number", []string{"0.25"}, "true", "true or false"},
	{time.Second, `a string (a duration such as "30s")`, []string{`"30s"`}, "30", "a number"},
	{false, "true or false", []string{"true"}, "null", "null"},
	{"", "a string", []string{`"x"`}, `["x"]`, "an array of strings"},
	{[]string(nil), "an array of strings", []string{`["a", "b"]`, `[]`}, `["a", 1]`, "an array holding a number"},
	{[]string{}, "an array of strings", nil, `{"a": 1}`, "an object"},
}

func TestTypes(t *testing.T) {
	for _, tt := range typeTests {
		got := TypeOf(reflect.TypeOf(tt.flag))
		if got != tt.want {
			t.Errorf("TypeOf(%T) = %q, want %q", tt.flag, got, tt.want)
		}
		for _, g := range tt.good {
			if v := decode(t, g); !Is(v, got) {
				t.Errorf("Is(%s, %q) = false, want true", g, got)
			}
		}
		v := decode(t, tt.bad)
		if Is(v, got) {
			t.Errorf("Is(%s, %q) = true, want false", tt.bad, got)
		}
		if name := TypeName(v); name != tt.badNamed {
			t.Errorf("TypeName(%s) = %q, want %q", tt.bad, name, tt.badNamed)
		}
	}
}

func TestText(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want any
	}{
		{"18446744073709551615", "18446744073709551615"},
		{"0.1", "0.1"},
		{`["a", "b"]`, []any{"a", "b"}},
		{`[]`, nil},
		{"true", true},
		{`"30s"`, "30s"},
	} {
		if got := Text(decode(t, tt.src)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Text(%s) = %#v, want %#v", tt.src, got, tt.want)
		}
	}
}

func TestEncode(t *testing.T) {
	n := 7
	var none *int
	def := json.Number("5")
	for _, tt := range []struct {
		v    any
		def  any
		want any
	}{
		{&n, def, 7},
		{none, def, def},
		{none, nil, nil},
		{90 * time.Second, nil, "1m30s"},
		{[]string(nil), nil, []string{}},
		{[]string{"a"}, nil, []string{"a"}},
		{"x", def, "x"},
	} {
		if got := Encode(reflect.ValueOf(tt.v), tt.def); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Encode(%#v, %v) = %#v, want %#v", tt.v, tt.def, got, tt.want)
		}
	}
}

func TestDecode(t *testing.T) {
	values, keys, err := Decode([]byte(`{"seed": 18446744073709551615, "heads": ["a"], "epochs": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"epochs", "heads", "seed"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if values["seed"] != json.Number("18446744073709551615") || values["epochs"] != nil {
		t.Errorf("values %v: want the seed as written and a null epochs", values)
	}
	for _, bad := range []string{`["a"]`, `{"a": }`, ``} {
		if _, _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q): no error", bad)
		}
	}
}
