package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// checkJSON walks a JSON text and rejects what encoding/json lets pass: a
// key given twice in one object (encoding/json keeps the last), and, when
// fields is not nil, a key of the top-level object that is not exactly one
// of fields (encoding/json matches names case-insensitively). Syntax
// errors are left to the decoder that follows, which reports them.
func checkJSON(data []byte, fields map[string]bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object  bool
		wantKey bool
		seen    map[string]bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return nil // a syntax error: the decoder reports it
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			top := &stack[n-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				if len(stack) == 0 {
					return nil
				}
				continue
			}
			key, _ := tok.(string)
			if top.seen[key] {
				return fmt.Errorf("duplicate key %q", key)
			}
			top.seen[key] = true
			if n == 1 && fields != nil && !fields[key] {
				return unknownField(key, fields)
			}
			top.wantKey = false
			continue
		}
		// A value: the next token of an enclosing object is a key.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, wantKey: true, seen: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return nil // one value read; trailing data is the decoder's
		}
	}
}

// unknownField names the field that differs only in case, if one does.
func unknownField(key string, fields map[string]bool) error {
	for f := range fields {
		if strings.EqualFold(f, key) {
			return fmt.Errorf("unknown field %q (field names are case-sensitive: %q)", key, f)
		}
	}
	return fmt.Errorf("unknown field %q", key)
}

var fieldCache sync.Map // reflect.Type → map[string]bool

// jsonFields is the set of JSON names of the struct v points to.
func jsonFields(v any) map[string]bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]bool)
	}
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out[name] = true
	}
	fieldCache.Store(t, out)
	return out
}
