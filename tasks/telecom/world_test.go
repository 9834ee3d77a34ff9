package telecom

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// size is the number of faults in c.
func (c config) size() int { return bits.OnesCount16(uint16(c)) }

// cfgOf builds a configuration from fault names.
func cfgOf(t testing.TB, names ...string) config {
	var c config
	for _, n := range names {
		f, ok := faultByName(n)
		require.True(t, ok, n)
		c |= 1 << f
	}
	return c
}

func allFaults() []fault {
	out := make([]fault, numFaults)
	for i := range out {
		out[i] = fault(i)
	}
	return out
}

func TestPrior(t *testing.T) {
	p := newPrior(allFaults(), 0.5)
	assert.Len(t, p.configs, 9+35, "9 singles and the 36 pairs less quota+plan")
	sum, singles := 0.0, 0.0
	for i, c := range p.configs {
		sum += p.mass[i]
		if c.size() == 1 {
			singles += p.mass[i]
		}
		assert.False(t, c.has(fQuota) && c.has(fPlan), "incompatible pair %v", c)
		assert.Equal(t, i, p.index[c])
	}
	assert.InDelta(t, 1, sum, 1e-12)
	assert.InDelta(t, 0.5, singles, 1e-12)

	only := newPrior([]fault{fData}, 0.5)
	require.Len(t, only.configs, 1, "one fault type: no pair, all mass on it")
	assert.InDelta(t, 1, only.mass[0], 1e-12)
	assert.Equal(t, only.configs[0], only.sample(0.999))
	none := newPrior(allFaults(), 0)
	assert.Len(t, none.configs, 9)
}

func TestEveryFaultHasItsSymptom(t *testing.T) {
	service := map[fault]bool{fAirplane: true, fSIM: true, fSuspended: true, fBroken: true}
	for _, f := range allFaults() {
		w := newWorld(1 << f)
		want := noData
		if service[f] {
			want = noService
		}
		assert.Equal(t, want, w.symptom(), f.String())
	}
	healthy := newWorld(0)
	assert.Equal(t, works, healthy.symptom())
}

// run applies writes to a configuration's world.
func run(c config, ops ...op) (world, []bool) {
	w := newWorld(c)
	errs := make([]bool, len(ops))
	for i, o := range ops {
		errs[i] = w.write(o)
	}
	return w, errs
}

func TestExpectedActionsRepairEveryConfiguration(t *testing.T) {
	p := newPrior(allFaults(), 0.5)
	for _, c := range p.configs {
		for _, s := range []setting{solo, dual} {
			var ops []op
			for _, a := range expectedActions(c, s, 3) {
				ops = append(ops, a.op)
				if a.op.account() {
					assert.Equal(t, 3, a.line)
				}
				assert.Equal(t, s == dual && a.op.device(), a.say, "dual device repairs are the user's")
			}
			w, errs := run(c, ops...)
			assert.Equal(t, expectedWorld(c), w, "%v %v", c, ops)
			assert.NotContains(t, errs, true)
			assert.Empty(t, w.repairsNeeded(&p.expected[p.index[c]]))
		}
	}
}

// An extra write on top of the expected ones breaks the expected final
// state, except the two harmless ones: reseat with no new SIM pending, and
// enabling roaming that is already on (a tool error).
func TestUnneededRepairsAreHarmful(t *testing.T) {
	p := newPrior(allFaults(), 0.5)
	for _, c := range p.configs {
		var base []op
		for _, a := range expectedActions(c, solo, 0) {
			base = append(base, a.op)
		}
		closing := base[len(base)-1]
		for _, extra := range constantWrites {
			if indexOp(base, extra) >= 0 {
				continue
			}
			ops := append(append(append([]op(nil), base[:len(base)-1]...), extra), closing)
			w, _ := run(c, ops...)
			w0 := newWorld(c)
			harmless := extra == opReseat || extra == opRoaming && w0.lineRoam
			assert.Equal(t, harmless, w == expectedWorld(c), "%v + %v", c, extra)
		}
	}
}

func TestReads(t *testing.T) {
	words := func(ts []tasks.Token) string { return vocabulary.Decode(ts) }
	cases := []struct {
		faults []string
		ops    []op // writes first
		read   op
		want   string
	}{
		{[]string{"airplane", "sim"}, nil, opBar, "plane"},
		{[]string{"airplane", "sim"}, []op{opAirplane}, opBar, "nosim"},
		{[]string{"sim", "broken"}, []op{opNewsim}, opBar, "nosim"},
		{[]string{"sim", "broken"}, []op{opNewsim, opReseat}, opBar, "nobars"},
		{[]string{"broken", "suspended"}, nil, opBar, "nobars"},
		{[]string{"broken", "suspended"}, nil, opLine, "suspended off home"},
		{[]string{"suspended"}, nil, opBar, "sos"},
		{[]string{"suspended"}, []op{opTopup}, opBar, "bars"},
		{[]string{"plan"}, nil, opUsage, "none voice"},
		{[]string{"plan"}, []op{opPlan}, opUsage, "left basic"},
		{[]string{"quota"}, nil, opUsage, "out basic"},
		{[]string{"quota"}, []op{opRefuel}, opUsage, "left basic"},
		{[]string{"roaming"}, nil, opLine, "active off abroad"},
		{[]string{"roaming"}, nil, opSettings, "off on on"},
		{[]string{"droam"}, nil, opLine, "active on abroad"},
		{[]string{"droam"}, nil, opSettings, "off on off"},
		{[]string{"data"}, nil, opSettings, "off off off"},
		{[]string{"data"}, nil, opTest, "no-data"},
		{[]string{"data"}, []op{opData}, opTest, "works"},
		{[]string{"airplane"}, nil, opSettings, "on on off"},
		{[]string{"airplane", "quota"}, []op{opAirplane}, opTest, "no-data"},
	}
	for _, tc := range cases {
		w, _ := run(cfgOf(t, tc.faults...), tc.ops...)
		assert.Equal(t, tc.want, words(w.read(tc.read)), "%v after %v: %v", tc.faults, tc.ops, tc.read)
	}
	assert.Panics(t, func() { w := newWorld(0); w.read(opTopup) }, "a write is not a read")
	assert.Panics(t, func() { w := newWorld(0); w.write(opLine) }, "a read is not a write")
}

func TestToolErrors(t *testing.T) {
	cases := []struct {
		faults []string
		ops    []op
		errs   []bool
	}{
		{[]string{"plan"}, []op{opRefuel, opPlan, opRefuel}, []bool{true, false, false}},
		{[]string{"droam"}, []op{opRoaming}, []bool{true}},
		{[]string{"data"}, []op{opRoaming, opRoaming}, []bool{false, true}},
		{[]string{"data"}, []op{opPlan, opPlan}, []bool{false, true}},
		{[]string{"sim"}, []op{opNewsim, opNewsim, opReseat, opNewsim}, []bool{false, true, false, false}},
		{[]string{"data"}, []op{opTopup, opTopup, opRestart, opReseat}, []bool{false, false, false, false}},
	}
	for _, tc := range cases {
		_, errs := run(cfgOf(t, tc.faults...), tc.ops...)
		assert.Equal(t, tc.errs, errs, "%v %v", tc.faults, tc.ops)
	}
}
