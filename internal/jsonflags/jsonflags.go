package jsonflags

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"time"
)

// TypeOf is the JSON type a flag whose value is of type t (or a pointer
// to it) takes in a configuration file: "a string (a duration such as
// \"30s\")", "true or false", "a string", "an array of strings" or "a
// number".
func TypeOf(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		return "a string (a duration such as \"30s\")"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Slice:
		return "an array of strings"
	}
	return "a number"
}

// Is reports whether the decoded JSON value v is of the type want, as
// [TypeOf] names it.
func Is(v any, want string) bool {
	return TypeName(v) == want || strings.HasPrefix(want, TypeName(v)+" (")
}

// TypeName names the JSON type of the decoded value v as [TypeOf] does
// ("null", "an object", "an array holding ..." for the others).
func TypeName(v any) string {
	switch v := v.(type) {
	case bool:
		return "true or false"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case nil:
		return "null"
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return "an array holding " + TypeName(e)
			}
		}
		return "an array of strings"
	}
	return "an object"
}

// Text is the decoded JSON value v as a flag parser that reads values as
// text takes it: a number as the text it was written as, an array element
// by element, an empty array as nil (the flag's default: none).
func Text(v any) any {
	switch v := v.(type) {
	case json.Number:
		return v.String()
	case []any:
		if len(v) == 0 {
			return nil
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = Text(e)
		}
		return out
	}
	return v
}

// Encode is the flag value v as a configuration file writes it: a
// duration as its text ("30s"), a nil string slice as an empty array, a
// pointer as what it points to. For a nil pointer (a flag left out), it
// returns def: nil writes null.
func Encode(v reflect.Value, def any) any {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return def
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Duration:
		return x.String()
	case []string:
		if x == nil {
			return []string{}
		}
	}
	return v.Interface()
}

// Decode decodes data, a configuration file: one JSON object, its numbers
// kept as written (json.Number). It returns the object's values and its
// keys, sorted; the error is the decoder's.
func Decode(data []byte) (values map[string]any, keys []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&values); err != nil {
		return nil, nil, err
	}
	keys = make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return values, keys, nil
}
