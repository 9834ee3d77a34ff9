package engine

import (
	"reflect"
	"unsafe"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Elementwise outputs that outlive a run.
//
// Why. gorgonia runs an elementwise binary op (+, −, ⊙, ÷ of two tensors:
// a transformer's residual adds, and every gradient sum that its autodiff
// inserts where a node has several readers) in place when the register
// allocator lets it overwrite an input, and otherwise clones its left
// input and adds into the clone: a fresh tensor on every run. For the small
// preset's PPO update those clones would be ~38 MB per update, more than
// anything else a run allocates once the matmul outputs are kept
// (machine.go).
//
// How. When the Machine is built it finds, among the program's exec
// instructions, those of such ops that run on neither of gorgonia's other
// paths (not in place, not preallocated), and swaps the op the instruction
// executes (not the node's op: the graph is untouched) for reusedBinOp,
// which keeps the output of its first run and hands it, on every later run,
// to the op's own preallocated path (gorgonia's UsePreallocDo: the same
// element loop, writing out[i] = a[i] ∘ b[i] into the kept tensor instead of
// into a clone of a). Every element is one IEEE operation on the same two
// operands either way, so the values are bitwise those of a fresh run
// (TestMachineReuseMatchesFreshRuns). Inputs of any other form (a scalar
// operand, a view, a shape that changed) take the op's plain Do, as before.
// A kept output is valid until the next run, as every op-owned buffer is
// (op_common.go); nothing else can hold it at the start of a run, because
// the register bank starts empty and only this instruction writes it first.

// reusedBinOp is a gorgonia elementwise binary op with its output kept
// between runs. It answers every Op method as the op does (embedding it),
// and its preallocated and in-place paths are the op's.
type reusedBinOp struct {
	G.Op
	prealloc G.UsePreallocDoer
	inPlace  G.UnsafeDoer
	arith    arith
	kept     *tensor.Dense
}

func (op *reusedBinOp) UsePreallocDo(p G.Value, vs ...G.Value) (G.Value, error) {
	return op.prealloc.UsePreallocDo(p, vs...)
}

func (op *reusedBinOp) UnsafeDo(vs ...G.Value) (G.Value, error) { return op.inPlace.UnsafeDo(vs...) }

// Do is the op's result, written into the tensor kept from the last run
// when the inputs are two plain float32 tensors of its size.
func (op *reusedBinOp) Do(vs ...G.Value) (G.Value, error) {
	if k := op.kept; k != nil && reusableInputs(k, vs) {
		if directArith(op.arith, k, vs) { // the same loop (machine_arith.go)
			return k, nil
		}
		v, err := op.prealloc.UsePreallocDo(k, vs...)
		if err == nil && v == G.Value(k) {
			return v, nil
		}
		op.kept = nil // not the path we expected: plain Do from now on
		if err == nil {
			return v, nil
		}
	}
	v, err := op.Op.Do(vs...)
	if err != nil {
		return nil, err
	}
	if d, ok := v.(*tensor.Dense); ok && !d.IsView() && d.Dtype() == tensor.Float32 && reusableInputs(d, vs) {
		op.kept = d
	}
	return v, nil
}

// reusableInputs reports whether vs are two contiguous float32 tensors of
// out's size, neither sharing out's memory.
func reusableInputs(out *tensor.Dense, vs []G.Value) bool {
	o := out.Float32s()
	if len(vs) != 2 || len(o) == 0 {
		return false
	}
	for _, v := range vs {
		d, ok := v.(*tensor.Dense)
		if !ok || d.Dtype() != tensor.Float32 || d.RequiresIterator() {
			return false
		}
		x := d.Float32s()
		if len(x) != len(o) || d.Shape().TotalSize() != len(o) || &x[0] == &o[0] {
			return false
		}
	}
	return true
}

// reusableBinOp reports whether op is one of gorgonia's elementwise
// arithmetic ops on two tensors (its String is "<symbol> <retSame>").
func reusableBinOp(op G.Op) bool {
	t := reflect.TypeOf(op)
	if t == nil || t.Name() != "elemBinOp" || t.PkgPath() != "gorgonia.org/gorgonia" {
		return false
	}
	if _, ok := op.(G.UsePreallocDoer); !ok {
		return false
	}
	if _, ok := op.(G.UnsafeDoer); !ok {
		return false
	}
	s := op.String()
	for _, sym := range []string{"+ ", "- ", "⊙ ", "÷ "} {
		if len(s) > len(sym) && s[:len(sym)] == sym {
			return true
		}
	}
	return false
}

// bindBinOps swaps the op of every exec instruction (a struct behind a
// pointer in instrs) that runs a reusable op on its plain path for a
// reusedBinOp; it returns how many it swapped, and leaves everything as it
// was if the instruction layout is not the expected one.
func bindBinOps(instrs reflect.Value) int {
	type swap struct {
		field *G.Op
		op    G.Op
	}
	var swaps []swap
	for i := range instrs.Len() {
		in := instrs.Index(i)
		if in.Kind() == reflect.Interface {
			in = in.Elem()
		}
		if in.Kind() != reflect.Pointer || in.IsNil() || in.Elem().Kind() != reflect.Struct || in.Elem().Type().Name() != "execOp" {
			continue
		}
		st := in.Elem()
		f, pre, uns := st.FieldByName("op"), st.FieldByName("preAllocated"), st.FieldByName("useUnsafe")
		if !f.IsValid() || f.Type() != reflect.TypeFor[G.Op]() || pre.Kind() != reflect.Bool || uns.Kind() != reflect.Bool {
			return 0
		}
		if pre.Bool() || uns.Bool() {
			continue
		}
		field := (*G.Op)(unsafe.Pointer(f.UnsafeAddr()))
		if op := *field; reusableBinOp(op) {
			swaps = append(swaps, swap{field, &reusedBinOp{Op: op, prealloc: op.(G.UsePreallocDoer), inPlace: op.(G.UnsafeDoer),
				arith: arithOf(op)}})
		}
	}
	for _, s := range swaps {
		*s.field = s.op
	}
	return len(swaps)
}
