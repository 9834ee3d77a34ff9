package rl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// MarshalJSON writes the fields in order under their tags, non-finite
// numbers as null (encoding/json rejects NaN).
func (m Metrics) MarshalJSON() ([]byte, error) { return finiteJSON(m) }

// UnmarshalJSON reads what MarshalJSON wrote; null becomes NaN.
func (m *Metrics) UnmarshalJSON(data []byte) error {
	type plain Metrics
	p := (*plain)(m)
	rv := reflect.ValueOf(p).Elem()
	for i := range rv.NumField() {
		if rv.Field(i).Kind() == reflect.Float64 {
			rv.Field(i).SetFloat(math.NaN())
		}
	}
	return json.Unmarshal(data, p)
}

// finiteJSON encodes a flat struct's tagged fields in declaration order,
// with non-finite float64 fields as null.
func finiteJSON(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := range rt.NumField() {
		tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, "%q:", tag)
		f := rv.Field(i)
		if f.Kind() == reflect.Float64 && (math.IsNaN(f.Float()) || math.IsInf(f.Float(), 0)) {
			buf.WriteString("null")
			continue
		}
		b, err := json.Marshal(f.Interface())
		if err != nil {
			return nil, fmt.Errorf("metrics: field %s: %w", tag, err)
		}
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
