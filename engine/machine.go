package engine

import (
	"fmt"
	"reflect"
	"unsafe"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Machine runs a compiled gorgonia program again and again without
// allocating its matmul outputs anew each time.
//
// Why. gorgonia's tape machine gives every extern op (its matmuls) a
// register that an "alloc" instruction fills with a fresh zeroed tensor
// when it is empty, and Reset empties every register, so each run of a
// training step allocated every matmul output again: for the small
// preset's PPO update, about 80% of ~500 MB per update. Machine keeps, for
// each alloc instruction, the tensor its node ended the last run with, and
// before the next run puts it back, zeroed and reshaped to the alloc's
// shape, in an otherwise emptied register bank: the alloc instruction then
// finds a tensor of the right shape and keeps it, so the run sees exactly
// what a fresh run sees (a tensor of that shape, in the same register,
// every other register empty) except for where the memory lives. The
// tensor is zeroed, as a fresh one is, unless its op is one of gorgonia's
// matrix products, which overwrite their whole preallocated output (BLAS
// with β = 0).
// A tensor is not kept when the node's value is not a plain, unshared
// float32 tensor of the alloc's size (an op may have returned a view).
//
// How. Nothing in gorgonia's API resets the program counter without
// emptying the registers, so Machine reads the machine's unexported state
// (pc, cpumem, the program's alloc instructions) by reflection, once, when
// it is built. If the layout is not the one of the gorgonia version this
// was written for (v0.9.18), Machine falls back to Reset: correct, only
// allocating. Reusing says which path is on; TestMachineReuseMatchesFreshRuns
// holds the reusing path bitwise to fresh machines.
type Machine struct {
	vm    G.VM
	pc    *int
	mem   *[]G.Value
	slots []machineSlot
	ran   bool

	binOps int   // elementwise instructions whose outputs are kept (machine_prealloc.go)
	tape   *tape // the program as steps Run executes itself (machine_exec.go); nil: RunAll
}

// machineSlot is one alloc instruction: its register, the node whose
// output it holds, the shape it allocates, and the tensor kept from the
// last run (nil: none).
type machineSlot struct {
	reg   int
	node  *G.Node
	shape tensor.Shape
	zero  bool // clear the kept tensor before reuse (the op may read it)
	kept  *tensor.Dense
}

// NewMachine compiles a tape machine for g (gorgonia panics on a program it
// cannot compile; that becomes an error).
func NewMachine(g *G.ExprGraph) (m *Machine, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("compile: %v", r)
		}
	}()
	m = &Machine{vm: G.NewTapeMachine(g)}
	m.bind(g)
	return m, nil
}

// Reusing reports whether the machine keeps its matmul outputs between
// runs (false: it resets and reallocates, as a plain tape machine does).
func (m *Machine) Reusing() bool { return m.pc != nil }

// Run runs the whole program once.
func (m *Machine) Run() error {
	if m.pc == nil || (!m.ran && m.tape == nil) {
		m.vm.Reset()
	} else {
		*m.pc = 0
		mem := *m.mem
		clear(mem)
		for _, s := range m.slots {
			if s.kept != nil {
				if s.zero {
					clear(s.kept.Float32s())
				}
				mem[s.reg] = s.kept
			}
		}
	}
	if m.tape != nil {
		if err := m.tape.run(); err != nil {
			return err
		}
	} else if err := m.vm.RunAll(); err != nil {
		return err
	}
	m.ran = true
	for i := range m.slots {
		m.slots[i].keep()
	}
	return nil
}

// keep takes the node's value as the slot's tensor for the next run, if it
// is one the alloc instruction would accept after a reshape.
func (s *machineSlot) keep() {
	s.kept = nil
	d, ok := s.node.Value().(*tensor.Dense)
	if !ok || d.IsView() || d.Dtype() != tensor.Float32 || len(d.Float32s()) != s.shape.TotalSize() {
		return
	}
	if !d.Shape().Eq(s.shape) {
		if err := d.Reshape(s.shape...); err != nil {
			return
		}
	}
	s.kept = d
}

// RunsItself reports whether Run executes the compiled program itself
// (machine_exec.go) rather than through the tape machine's RunAll.
func (m *Machine) RunsItself() bool { return m.tape != nil }

// Close releases the machine.
func (m *Machine) Close() error { return m.vm.Close() }

// bind finds the tape machine's pc and register bank and its alloc
// instructions; on any surprise it leaves m.pc nil (the Reset path).
func (m *Machine) bind(g *G.ExprGraph) {
	rv := reflect.ValueOf(m.vm)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return
	}
	st := rv.Elem()
	pc, mem, prog := st.FieldByName("pc"), st.FieldByName("cpumem"), st.FieldByName("p")
	if pc.Kind() != reflect.Int || mem.Kind() != reflect.Slice || mem.Type().Elem() != reflect.TypeFor[G.Value]() ||
		prog.Kind() != reflect.Pointer || prog.IsNil() {
		return
	}
	instrs := prog.Elem().FieldByName("instructions")
	if instrs.Kind() != reflect.Slice {
		return
	}
	m.binOps = bindBinOps(instrs)
	var slots []machineSlot
	for i := range instrs.Len() {
		in := instrs.Index(i)
		if in.Kind() == reflect.Interface {
			in = in.Elem()
		}
		if in.Kind() != reflect.Struct || in.Type().Name() != "alloc" {
			continue
		}
		id, shape, to := in.FieldByName("id"), in.FieldByName("s"), in.FieldByName("writeTo")
		if id.Kind() != reflect.Int64 || shape.Kind() != reflect.Slice || to.Kind() != reflect.Struct {
			return
		}
		reg, dev := to.FieldByName("id"), to.FieldByName("device")
		if reg.Kind() != reflect.Int || !dev.CanInt() || dev.Int() != int64(G.CPU) {
			return
		}
		node, ok := g.Node(id.Int()).(*G.Node)
		if !ok || node == nil || reg.Int() < 0 || int(reg.Int()) >= mem.Len() {
			return
		}
		s := make(tensor.Shape, shape.Len())
		for j := range s {
			s[j] = int(shape.Index(j).Int())
		}
		slots = append(slots, machineSlot{reg: int(reg.Int()), node: node, shape: s, zero: !overwritesOutput(node.Op())})
	}
	m.pc = (*int)(unsafe.Pointer(pc.UnsafeAddr()))
	m.mem = (*[]G.Value)(unsafe.Pointer(mem.UnsafeAddr()))
	m.slots = slots
	m.tape = bindTape(st, instrs, g, m.mem)
}

// overwritesOutput reports whether op is one of gorgonia's matrix products
// (matrix·matrix, matrix·vector, batched: its String starts with "A"),
// which write every element of a preallocated output without reading it.
// Anything else is assumed to need a zeroed output.
func overwritesOutput(op G.Op) bool {
	t := reflect.TypeOf(op)
	if t == nil || t.Name() != "linAlgBinOp" || t.PkgPath() != "gorgonia.org/gorgonia" {
		return false
	}
	str := op.String()
	return len(str) > 0 && str[0] == 'A'
}
