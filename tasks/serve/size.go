package serve

import (
	"reflect"
)

// sizeOf estimates the heap that v holds: it walks v's pointers, slices,
// maps, strings and interfaces (unexported fields included), counting
// each pointed-to object once, slices by capacity and maps by entries at
// twice their key and value size (buckets and slack). It serves the task
// cache's byte budget, so it must be cheap on large tasks: arrays and
// slices of pointer-free elements are sized without visiting them, and
// the walk stops after maxSizeVisits values (the estimate is then low).
func sizeOf(v any) int64 {
	if v == nil {
		return 0
	}
	z := sizer{seen: map[uintptr]bool{}}
	rv := reflect.ValueOf(v)
	z.n += int64(rv.Type().Size())
	z.contents(rv)
	return z.n
}

const maxSizeVisits = 1 << 20

type sizer struct {
	n      int64
	visits int
	seen   map[uintptr]bool
}

// first reports whether the object at p is met for the first time.
func (z *sizer) first(p uintptr) bool {
	if p == 0 || z.seen[p] {
		return false
	}
	z.seen[p] = true
	return true
}

// contents adds what v refers to beyond its own inline bytes.
func (z *sizer) contents(v reflect.Value) {
	if z.visits++; z.visits > maxSizeVisits {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() && z.first(v.Pointer()) {
			z.n += int64(v.Type().Elem().Size())
			z.contents(v.Elem())
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() != reflect.Pointer { // a boxed value
			z.n += int64(e.Type().Size())
		}
		z.contents(e)
	case reflect.String:
		z.n += int64(v.Len())
	case reflect.Slice:
		if v.IsNil() || !z.first(v.Pointer()) {
			return
		}
		z.n += int64(v.Cap()) * int64(v.Type().Elem().Size())
		if hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				z.contents(v.Index(i))
			}
		}
	case reflect.Array:
		if hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				z.contents(v.Index(i))
			}
		}
	case reflect.Map:
		if v.IsNil() || !z.first(v.Pointer()) {
			return
		}
		kt, vt := v.Type().Key(), v.Type().Elem()
		z.n += 48 + 2*int64(v.Len())*int64(kt.Size()+vt.Size())
		if hasPointers(kt) || hasPointers(vt) {
			for it := v.MapRange(); it.Next(); {
				z.contents(it.Key())
				z.contents(it.Value())
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			z.contents(v.Field(i))
		}
	}
}

// hasPointers reports whether a value of type t can refer to more memory.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.String, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
