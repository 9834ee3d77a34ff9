package engine

import (
	"fmt"
	"reflect"
	"unsafe"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The instruction loop, without the tape machine's bookkeeping.
//
// Why. gorgonia's tape machine spends about three allocations on every
// instruction it executes whatever the op does: a fresh slice of the
// op's inputs, the result variable (captured by a closure the CPU path
// never builds), and the boxing of log arguments that a default build
// never prints; its argument loads and frees box theirs too, and every
// RunAll starts a goroutine with two channels. For the small preset's PPO
// update that bookkeeping is ~8,000 allocations per update.
//
// How. When the Machine is built, tape reads the compiled program by
// reflection into plain steps (the registers each instruction reads and
// writes, its node, its op and flags) and from then on runs them itself,
// doing per instruction exactly what the tape machine does on the CPU
// path of a default build: an argument load puts the node's value in its
// register; an alloc puts a zeroed tensor of its shape there unless the
// register already holds one of that dtype and shape; an op runs on its
// preallocated path if flagged so or if its output register is filled
// (falling back to Do when that fails), else on its in-place path if
// flagged, else Do; its result gets the machine's engine, goes in its
// register and is bound to its node. Each op gets its inputs in a slice
// of its own that is refilled every run. Anything else in a program (a
// read into a Go value, a device transfer, a register off the CPU, batched BLAS work,
// logging or tracing flags) leaves tape nil and the Machine on the tape
// machine's RunAll. The values are bitwise the same:
// TestMachineReuseMatchesFreshRuns holds every run to a fresh tape machine,
// TestTapeMatchesRunAll a tape to RunAll on the same graph.

type stepKind uint8

const (
	stepLoad  stepKind = iota // load a node's value into a register
	stepAlloc                 // ensure a zeroed tensor of a shape in a register
	stepExec                  // run an op
)

// step is one instruction of the program.
type step struct {
	kind  stepKind
	node  *G.Node
	reg   int // register written
	in    []int
	args  []G.Value // the op's inputs, refilled every run
	op    G.Op
	pre   bool  // the compiler preallocated the output
	unsf  bool  // the compiler lets the op overwrite an input
	arith arith // elementwise arithmetic run by directArith (machine_arith.go)
	dtype tensor.Dtype
	shape tensor.Shape
}

// tape is a program as steps, with the register bank it runs on.
type tape struct {
	steps   []step
	mem     *[]G.Value
	engine  tensor.Engine
	boundTo uintptr      // offset of Node.boundTo
	dual    reflect.Type // the dual value type whose layout was checked
}

// bindTape reads the program behind st (the tape machine's struct) into a
// tape, or returns nil if any part of it is not one tape runs.
func bindTape(st reflect.Value, instrs reflect.Value, g *G.ExprGraph, mem *[]G.Value) *tape {
	if !tapeMachineIsPlain(st) {
		return nil
	}
	eng, ok := st.FieldByName("Engine").Interface().(tensor.Engine)
	if !ok || eng == nil {
		return nil
	}
	bf, ok := reflect.TypeFor[G.Node]().FieldByName("boundTo")
	if !ok || bf.Type != reflect.TypeFor[G.Value]() {
		return nil
	}
	t := &tape{mem: mem, engine: eng, boundTo: bf.Offset}
	for i := range instrs.Len() {
		in := instrs.Index(i)
		if in.Kind() == reflect.Interface {
			in = in.Elem()
		}
		s, ok := readStep(in, g, len(*mem))
		if !ok {
			return nil
		}
		if s != nil {
			t.steps = append(t.steps, *s)
		}
	}
	return t
}

// tapeMachineIsPlain reports whether the machine logs, traces, watches and
// binds dual values as a default NewTapeMachine does: not at all, and has
// no batched BLAS whose work it must flush.
func tapeMachineIsPlain(st reflect.Value) bool {
	logFlags, runFlags, b := st.FieldByName("logFlags"), st.FieldByName("runFlags"), st.FieldByName("b")
	logger, gpumem := st.FieldByName("logger"), st.FieldByName("gpumem")
	if !logFlags.CanUint() || !runFlags.CanUint() || b.Kind() != reflect.Interface || logger.Kind() != reflect.Pointer ||
		gpumem.Kind() != reflect.Slice {
		return false
	}
	// runFlags: only allocVals (bit 5; trace is bit 6, bindDV bit 7).
	return logFlags.Uint() == 0 && runFlags.Uint() == 1<<5 && b.IsNil() && logger.IsNil() && gpumem.Len() == 0
}

// readStep reads one instruction: a step, nil for one that does nothing on
// the CPU (free, let, flush without batched BLAS), or false for one tape
// does not run.
func readStep(in reflect.Value, g *G.ExprGraph, nregs int) (*step, bool) {
	name := in.Type().Name()
	if in.Kind() == reflect.Pointer && !in.IsNil() {
		name = in.Elem().Type().Name()
	}
	switch name {
	case "free":
		_, ok := readRegister(in.FieldByName("readsFrom"), nregs)
		return nil, ok
	case "letInstr", "flushInstr":
		return nil, true
	case "loadArg":
		reg, ok := readRegister(in.FieldByName("writeTo"), nregs)
		node, ok2 := readNode(g, in.FieldByName("index"))
		return &step{kind: stepLoad, node: node, reg: reg}, ok && ok2
	case "alloc":
		reg, ok := readRegister(in.FieldByName("writeTo"), nregs)
		node, ok2 := readNode(g, in.FieldByName("id"))
		sh := in.FieldByName("s")
		if !ok || !ok2 || sh.Kind() != reflect.Slice {
			return nil, false
		}
		s := make(tensor.Shape, sh.Len())
		for j := range s {
			s[j] = int(sh.Index(j).Int())
		}
		return &step{kind: stepAlloc, node: node, reg: reg, dtype: node.Dtype(), shape: s}, true
	case "execOp":
		if in.Kind() != reflect.Pointer {
			return nil, false
		}
		e := in.Elem()
		// (Its useGPU flag marks ops that have a CUDA path; the CPU build
		// of the tape machine ignores it, and so does tape.)
		f, pre, unsf, from := e.FieldByName("op"), e.FieldByName("preAllocated"), e.FieldByName("useUnsafe"), e.FieldByName("readFrom")
		if !f.IsValid() || f.Type() != reflect.TypeFor[G.Op]() || pre.Kind() != reflect.Bool || unsf.Kind() != reflect.Bool ||
			from.Kind() != reflect.Slice {
			return nil, false
		}
		reg, ok := readRegister(e.FieldByName("writeTo"), nregs)
		node, ok2 := readNode(g, e.FieldByName("id"))
		if !ok || !ok2 {
			return nil, false
		}
		s := &step{kind: stepExec, node: node, reg: reg, op: *(*G.Op)(unsafe.Pointer(f.UnsafeAddr())),
			pre: pre.Bool(), unsf: unsf.Bool(), in: make([]int, from.Len()), args: make([]G.Value, from.Len())}
		s.arith = arithOf(s.op)
		for j := range s.in {
			if s.in[j], ok = readRegister(from.Index(j), nregs); !ok {
				return nil, false
			}
		}
		return s, s.op != nil
	}
	return nil, false
}

// readRegister reads a CPU register's index.
func readRegister(r reflect.Value, nregs int) (int, bool) {
	if r.Kind() != reflect.Struct {
		return 0, false
	}
	id, dev := r.FieldByName("id"), r.FieldByName("device")
	if id.Kind() != reflect.Int || !dev.CanInt() || dev.Int() != int64(G.CPU) || id.Int() < 0 || int(id.Int()) >= nregs {
		return 0, false
	}
	return int(id.Int()), true
}

// readNode finds the node an instruction names.
func readNode(g *G.ExprGraph, id reflect.Value) (*G.Node, bool) {
	if id.Kind() != reflect.Int64 {
		return nil, false
	}
	n, ok := g.Node(id.Int()).(*G.Node)
	return n, ok && n != nil
}

// run executes every step once, on the register bank as it is.
func (t *tape) run() error {
	mem := *t.mem
	for i := range t.steps {
		s := &t.steps[i]
		switch s.kind {
		case stepLoad:
			v := *t.boundPtr(s.node)
			if v == nil {
				return fmt.Errorf("no value bound to node %v", s.node)
			}
			if p := t.dualValuePart(v); p != nil {
				v = *p
			}
			mem[s.reg] = v
		case stepAlloc:
			if r := mem[s.reg]; r != nil && r.Dtype() == s.dtype && r.Shape().Eq(s.shape) {
				continue
			}
			v, err := zeroValue(s.node, s.dtype, s.shape)
			if err != nil {
				return fmt.Errorf("alloc for %v: %w", s.node, err)
			}
			t.setEngine(v)
			mem[s.reg] = v
		case stepExec:
			v, err := t.exec(s, mem)
			if err != nil {
				return fmt.Errorf("op %v of node %v: %w", s.op, s.node, err)
			}
			mem[s.reg] = v
			t.bind(s.node, v)
		}
	}
	return nil
}

// exec runs one op by the path the tape machine would choose.
func (t *tape) exec(s *step, mem []G.Value) (v G.Value, err error) {
	for j, r := range s.in {
		s.args[j] = mem[r]
	}
	out := mem[s.reg]
	switch {
	case (s.pre || out != nil) && directArith(s.arith, out, s.args):
		v = out // what the op's preallocated path computes (machine_arith.go)
	case s.pre || out != nil:
		pd, ok := s.op.(G.UsePreallocDoer)
		if ok {
			v, err = pd.UsePreallocDo(out, s.args...)
		}
		// Do when the op has no preallocated path, or when it failed on a
		// register the compiler did not preallocate (a kept value).
		if !ok || (err != nil && !s.pre) {
			v, err = s.op.Do(s.args...)
		}
	case s.unsf:
		if ud, ok := s.op.(G.UnsafeDoer); ok {
			v, err = ud.UnsafeDo(s.args...)
		} else {
			v, err = s.op.Do(s.args...)
		}
	default:
		v, err = s.op.Do(s.args...)
	}
	clear(s.args) // hold no value past the run
	if err != nil {
		return nil, err
	}
	if _, dual := v.(dualValue); dual {
		return nil, fmt.Errorf("the op returned a dual value")
	}
	t.setEngine(v)
	return v, nil
}

// dualValue matches gorgonia's value-and-derivative pair (its only type
// with these two methods).
type dualValue interface {
	SetDeriv(G.Value) error
	SetValue(G.Value) error
}

// setEngine gives a tensor result the machine's engine, as the tape
// machine does with every value it writes.
func (t *tape) setEngine(v G.Value) {
	if tt, ok := v.(tensor.Tensor); ok {
		tensor.WithEngine(t.engine)(tt)
	}
}

// boundPtr is the address of the node's bound value (Node.boundTo).
func (t *tape) boundPtr(n *G.Node) *G.Value {
	return (*G.Value)(unsafe.Add(unsafe.Pointer(n), t.boundTo))
}

// bind makes v the node's value as gorgonia's Node.bind does: the value
// itself, or the value part of a dual value already bound there.
func (t *tape) bind(n *G.Node, v G.Value) {
	p := t.boundPtr(n)
	if d := t.dualValuePart(*p); d != nil {
		*d = v
		return
	}
	*p = v
}

// dualValuePart is the address of the value part of v if v is a
// *dualValue (a struct whose first field is the embedded Value), else nil.
// The type's layout is checked the first time it is seen, not on every
// load and bind.
func (t *tape) dualValuePart(v G.Value) *G.Value {
	if _, ok := v.(dualValue); !ok {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Type() != t.dual {
		checkDualLayout(rv)
		t.dual = rv.Type()
	}
	if rv.IsNil() {
		panic(fmt.Sprintf("engine: a nil %T is bound to a node", v))
	}
	return (*G.Value)(rv.UnsafePointer())
}

// checkDualLayout panics unless rv is a pointer to a struct whose first
// field is the embedded Value: the layout dualValuePart relies on.
func checkDualLayout(rv reflect.Value) {
	typ := rv.Type()
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct || typ.Elem().NumField() == 0 {
		panic(fmt.Sprintf("engine: gorgonia's dual value is a %v, not the struct this gorgonia had", typ))
	}
	f := typ.Elem().Field(0)
	if !f.Anonymous || f.Type != reflect.TypeFor[G.Value]() || f.Offset != 0 {
		panic(fmt.Sprintf("engine: gorgonia's dual value %v does not start with its Value", typ))
	}
}

// zeroValue is what the tape machine allocates for an alloc instruction: a
// zero scalar of the dtype for a scalar shape, else a zeroed dense tensor.
func zeroValue(n *G.Node, dt tensor.Dtype, s tensor.Shape) (G.Value, error) {
	if s.IsScalar() {
		switch dt {
		case tensor.Float64:
			return G.NewF64(0), nil
		case tensor.Float32:
			return G.NewF32(0), nil
		case tensor.Int:
			return G.NewI(0), nil
		case tensor.Int64:
			return G.NewI64(0), nil
		case tensor.Int32:
			return G.NewI32(0), nil
		case tensor.Byte:
			return G.NewU8(0), nil
		case tensor.Bool:
			return G.NewB(false), nil
		}
	}
	if _, ok := n.Type().(G.TensorType); !ok {
		return nil, fmt.Errorf("cannot allocate a value of type %v", n.Type())
	}
	return tensor.New(tensor.Of(dt), tensor.WithShape(s...)), nil
}
