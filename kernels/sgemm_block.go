package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Blocking sizes (see the comment at the top of sgemm.go). MC and NC are
// multiples of MR and NR.
const (
	sgemmMR = 6    // rows of the register tile
	sgemmNR = 16   // columns of the register tile (2 AVX vectors)
	sgemmKC = 256  // depth of one packed panel: a B sliver (KC,NR) is 16 KiB, in L1
	sgemmMC = 144  // rows of a packed A block: (MC,KC) is 144 KiB, in L2
	sgemmNC = 1024 // columns of a packed B panel: (KC,NC) is 1 MiB, in L3

	// sgemmMinWork is the number of multiply-adds a goroutine must get
	// before splitting pays: 2¹⁹ is 10–20 µs of work, more than handing a
	// share to a helper and joining it costs even when the other core is
	// busy (docs/bench.md, "Sgemm's split threshold").
	sgemmMinWork = 1 << 19
)

// sgemmTileFunc computes one full (MR,NR) tile of C from an A sliver (MR,kc)
// with element (r,p) at a[r·rs + p·ks] and a packed B sliver (kc,NR), kc ≥ 1:
//
//	C[r][j] = α·Σ_p a[r·rs+p·ks]·b[p·NR+j] + β·C[r][j],  C[r][j] at c[r·ldc+j]
//
// with the sum taken in order p = 0, 1, …, kc-1 in one float32 accumulator,
// and β = 0 meaning C is written without being read. A packed A sliver has
// rs = 1, ks = MR; a row-major A read in place has rs = lda, ks = 1.
type sgemmTileFunc func(kc int, a []float32, rs, ks int, b, c []float32, ldc int, alpha, beta float32)

// sgemmTile2Func is a double-width tile: the full (MR, 2·NR) block of C
// whose left half an sgemmTileFunc would compute from sliver b0 and right
// half from b1, with the same sums (so the same bits).
type sgemmTile2Func func(kc int, a []float32, rs, ks int, b0, b1, c []float32, ldc int, alpha, beta float32)

// sgemmTile12Func is a double-height tile: the full (2·MR, NR) block of C
// whose top half an sgemmTileFunc would compute from A sliver a0 and bottom
// half from a1 (same strides), with the same sums.
type sgemmTile12Func func(kc int, a0, a1 []float32, rs, ks int, b, c []float32, ldc int, alpha, beta float32)

// sgemmKernelSet is one implementation of the inner loops: the tile
// micro-kernel for the blocked path and the dot and axpy primitives for the
// matrix-vector shapes (sgemm_small.go).
type sgemmKernelSet struct {
	name   string
	tile   sgemmTileFunc
	tile2  sgemmTile2Func                      // nil: the driver uses tile alone
	tile12 sgemmTile12Func                     // nil: likewise
	dot    func(x, y []float32) float32        // Σ x[i]·y[i], len(y) ≥ len(x)
	axpy   func(alpha float32, x, y []float32) // y[i] += α·x[i], len(y) ≥ len(x)

	// pack16 copies kc runs of 16 floats, src[p·ld:] to dst[p·16:]: the
	// full-sliver case of packing a row-major B (sgemm_pack.go).
	pack16 func(dst, src []float32, kc, ld int)

	// packT16 copies 16 runs of kc floats, src[c·ld:], transposed to
	// dst[p·16 + c]: the full-sliver case of packing a B stored (n,k).
	packT16 func(dst, src []float32, kc, ld int)
}

// sgemmGo is the portable set; sgemmAVX2 and sgemmAVX512 the assembly
// ones, set at start-up in amd64 builds without the noasm tag
// (sgemm_amd64.go), and sgemmNEON in arm64 builds without it
// (neon_arm64.go); nil elsewhere.
var (
	sgemmGo = &sgemmKernelSet{name: "go", tile: sgemmTileGo, dot: sdotGo, axpy: saxpyGo,
		pack16: sgemmPack16Go, packT16: sgemmPackT16Go}
	sgemmAVX2, sgemmAVX512, sgemmNEON *sgemmKernelSet
)

// sgemmKernels is the set Sgemm uses now, by the package's CPU switch
// (cpu.go): the AVX-512 set when useAVX2 and useAVX512 are on, the AVX2
// set when only useAVX2 is, the NEON set when useNEON is, else the
// portable one.
func sgemmKernels() *sgemmKernelSet {
	switch {
	case useAVX2 && useAVX512 && sgemmAVX512 != nil:
		return sgemmAVX512
	case useAVX2 && sgemmAVX2 != nil:
		return sgemmAVX2
	case useNEON && sgemmNEON != nil:
		return sgemmNEON
	}
	return sgemmGo
}

// sgemmArgs are Sgemm's arguments, already validated.
type sgemmArgs struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int
}

// sgemmWorkers is how many goroutines a product of this size is worth:
// GOMAXPROCS, fewer when each would get less than sgemmMinWork.
func sgemmWorkers(m, n, k int) int {
	w := runtime.GOMAXPROCS(0)
	if byWork := float64(m) * float64(n) * float64(k) / sgemmMinWork; byWork < float64(w) {
		w = max(1, int(byWork))
	}
	return w
}

// sgemmGrid splits the columns [0,nc) of one B panel and all m rows of C
// into blocks, one task each: rowsPer (≤ MC, a multiple of MR) by colsPer (a
// multiple of NR). Rows are split first (each task then reads its A rows
// once per B sliver and shares the packed B); columns only when there are
// fewer row blocks than workers. Blocks are whole tiles, so the split changes no result.
type sgemmGrid struct{ rowsPer, mBlocks, colsPer, nBlocks int }

func sgemmPlan(m, nc, workers int) sgemmGrid {
	mBlocks := ceilDiv(m, sgemmMC)
	if workers > 1 {
		mBlocks = ceilDiv(mBlocks, workers) * workers // balance the workers
	}
	mBlocks = min(mBlocks, ceilDiv(m, sgemmMR))
	rowsPer := ceilDiv(ceilDiv(m, mBlocks), sgemmMR) * sgemmMR
	mBlocks = ceilDiv(m, rowsPer)
	nBlocks := 1
	if mBlocks < workers {
		nBlocks = min(ceilDiv(workers, mBlocks), ceilDiv(nc, sgemmNR))
	}
	colsPer := ceilDiv(ceilDiv(nc, nBlocks), sgemmNR) * sgemmNR
	return sgemmGrid{rowsPer, mBlocks, colsPer, ceilDiv(nc, colsPer)}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// sgemmJob is the state of one blocked product shared by its goroutines. It
// is pooled, like the packing buffers, and its goroutines are the pool's
// (pool.go), so in the steady state a call allocates nothing.
//
// The product is one task handed to the pool once: a fixed sequence of
// phases, for each B panel of NC columns and each K panel of KC rows in
// turn, "pack this panel of B" (units of sgemmPackUnit slivers; the
// caller packs the first panel alone, before the hand-off) then "compute
// every block of the grid from it". The goroutines claim units
// in that order from one counter, next, and count the units they finish
// in done; a unit of a phase starts only when every unit before its phase
// is done (done ≥ the phase's first index), so a phase starts after the
// previous one ends and the later K panels add onto finished partial sums.
// A goroutine that reaches a phase early waits for those few units, not
// for a hand-off through the scheduler.
type sgemmJob struct {
	sgemmArgs
	kern    *sgemmKernelSet
	workers int       // the grid's split (sgemmPlan)
	colsPer int       // > 0: the product is split by columns (sgemm_columns.go)
	bp      []float32 // the packed B panel of the current phase
	next    atomic.Int64
	done    atomic.Int64
	handoff poolRun

	// A goroutine that has waited poolSpin for a phase sleeps on cond
	// (parked counts the sleepers); each finished unit wakes them.
	mu     sync.Mutex
	cond   sync.Cond
	parked atomic.Int32
}

// sgemmPackUnit is how many B slivers one packing unit copies (16 KiB
// each at KC = 256).
const sgemmPackUnit = 4

var sgemmJobs = sync.Pool{New: func() any {
	j := new(sgemmJob)
	j.cond.L = &j.mu
	return j
}}

// sgemmBlocked computes C = α·op(A)·op(B) + β·C for k ≥ 1 and α ≠ 0 with the
// given kernels on up to workers goroutines. Loop order, outer to
// inner: B panels of NC columns, K panels of KC (B packed once per panel,
// shared), then blocks of the grid (each reads or packs its rows of A), then
// NR-column slivers, then MR-row slivers. Each C element is owned by one
// block and summed in the fixed order p = 0..k-1, so the result does not
// depend on workers.
func sgemmBlocked(args sgemmArgs, kern *sgemmKernelSet, workers int) {
	j := sgemmJobs.Get().(*sgemmJob)
	j.sgemmArgs, j.kern, j.workers = args, kern, workers
	if j.colsPer = sgemmColumnSplit(args.m, args.n, args.k, workers); j.colsPer > 0 {
		j.next.Store(0)
		runTask(min(workers, ceilDiv(args.n, j.colsPer)), j, &j.handoff)
		j.a, j.b, j.c, j.kern = nil, nil, nil, nil // keep no caller memory alive
		sgemmJobs.Put(j)
		return
	}
	bbuf := sgemmPoolB.get(min(sgemmKC, j.k) * ceilDiv(min(sgemmNC, j.n), sgemmNR) * sgemmNR)
	j.bp = *bbuf
	// The caller packs the first panel before it hands the product over,
	// so a product of one panel (every product of the model's training
	// step but the weight gradients of long sequences) has no phase to
	// wait for, as before: a helper that took a packing unit and then
	// lost its core to another process would hold up the whole product.
	first := j.first()
	sgemmPackB(kern, j.bp, j.transB, j.b, j.ldb, first.pc, first.kc, first.jc, first.nc)
	j.next.Store(int64(first.units))
	j.done.Store(int64(first.units))
	g := sgemmPlan(j.m, first.nc, workers)
	runTask(min(workers, g.mBlocks*g.nBlocks), j, &j.handoff)
	sgemmPoolB.put(bbuf)
	j.a, j.b, j.c, j.bp, j.kern = nil, nil, nil, nil, nil // keep no caller memory alive
	sgemmJobs.Put(j)
}

// sgemmPhase is one phase of a product: packing the B panel of columns
// [jc, jc+nc) and depth [pc, pc+kc), or computing the grid's blocks from
// it. Its units are the claims [base, base+units).
type sgemmPhase struct {
	jc, nc, pc, kc int
	pack           bool
	grid           sgemmGrid
	base, units    int
}

// first is the product's first phase: packing its first panel.
func (j *sgemmJob) first() sgemmPhase {
	ph := sgemmPhase{nc: min(sgemmNC, j.n), kc: min(sgemmKC, j.k), pack: true}
	ph.units = ceilDiv(ceilDiv(ph.nc, sgemmNR), sgemmPackUnit)
	return ph
}

// after returns the phase after ph, and false after the last one.
func (j *sgemmJob) after(ph sgemmPhase) (sgemmPhase, bool) {
	nx := ph
	nx.base += ph.units
	switch {
	case ph.pack:
		nx.pack = false
		nx.grid = sgemmPlan(j.m, ph.nc, j.workers)
		nx.units = nx.grid.mBlocks * nx.grid.nBlocks
		return nx, true
	case ph.pc+sgemmKC < j.k:
		nx.pc += sgemmKC
	case ph.jc+sgemmNC < j.n:
		nx.jc, nx.pc = ph.jc+sgemmNC, 0
		nx.nc = min(sgemmNC, j.n-nx.jc)
	default:
		return nx, false
	}
	nx.kc = min(sgemmKC, j.k-nx.pc)
	nx.pack = true
	nx.units = ceilDiv(ceilDiv(nx.nc, sgemmNR), sgemmPackUnit)
	return nx, true
}

// work claims units until none is left, with its own pooled scratch: the
// A block buffer and one tile for the edges.
func (j *sgemmJob) work() {
	if j.colsPer > 0 {
		j.workColumns()
		return
	}
	ph := j.first()
	compute, _ := j.after(ph) // every compute phase has its grid's rowsPer
	abufLen := compute.grid.rowsPer * min(sgemmKC, j.k)
	buf := sgemmPoolA.get(abufLen + sgemmMR*sgemmNR)
	abuf, tmp := (*buf)[:abufLen], (*buf)[abufLen:]
	for {
		t := int(j.next.Add(1) - 1)
		for t >= ph.base+ph.units {
			var more bool
			if ph, more = j.after(ph); !more {
				sgemmPoolA.put(buf)
				return
			}
		}
		j.awaitDone(ph.base)
		u := t - ph.base
		if ph.pack {
			s0 := u * sgemmPackUnit * sgemmNR
			nc := min(sgemmPackUnit*sgemmNR, ph.nc-s0)
			sgemmPackB(j.kern, j.bp[s0*ph.kc:], j.transB, j.b, j.ldb, ph.pc, ph.kc, ph.jc+s0, nc)
		} else {
			g := ph.grid
			i0 := (u / g.nBlocks) * g.rowsPer
			j0 := (u % g.nBlocks) * g.colsPer
			j.block(ph, j.bp, abuf[:g.rowsPer*ph.kc], tmp, i0, min(i0+g.rowsPer, j.m), j0, min(j0+g.colsPer, ph.nc))
		}
		j.done.Add(1)
		if j.parked.Load() > 0 {
			j.mu.Lock()
			j.cond.Broadcast()
			j.mu.Unlock()
		}
	}
}

// awaitDone returns when at least n units are done: it polls for poolSpin
// (the units it waits for are running on other goroutines and end
// within about one unit's time when both have a core) and then sleeps
// until a unit ends, so that a goroutine whose thread has lost its core
// to another process is not kept from it by a spinning one.
func (j *sgemmJob) awaitDone(n int) {
	if j.done.Load() >= int64(n) {
		return
	}
	start := time.Now()
	for i := 1; j.done.Load() < int64(n); i++ {
		if i%64 != 0 {
			continue
		}
		if time.Since(start) < poolSpin {
			runtime.Gosched()
			continue
		}
		j.mu.Lock()
		j.parked.Add(1)
		for j.done.Load() < int64(n) {
			j.cond.Wait()
		}
		j.parked.Add(-1)
		j.mu.Unlock()
		return
	}
}

// block computes rows [i0,i1) × columns jc+[j0,j1) of C for ph's K
// panel from the packed B panel bp (its sliver s holds columns jc+16s…); abuf receives the packed A block and tmp
// (one tile) the edge tiles.
//
// A is not packed: the kernel reads a full sliver in place (inPlaceA),
// which saves a copy of A that costs as much as 15–35% of the kernel time
// when n is 64..192 (A is then reused only n/16 times). A last partial
// sliver of mr < MR rows is read in place too, as the full sliver that
// ends at the block's last row (m ≥ MR): its tile goes through tmp and
// only its last mr rows are kept. Each row of C is the same sum whatever
// other rows its tile holds, so this gives the bits a zero-padded packed
// sliver gives; only when m < MR is the sliver packed.
func (j *sgemmJob) block(ph sgemmPhase, bp, abuf, tmp []float32, i0, i1, j0, j1 int) {
	g, tile, jc, pc, kc := &j.sgemmArgs, j.kern.tile, ph.jc, ph.pc, ph.kc
	beta := g.beta
	if pc > 0 {
		beta = 1 // later K panels add onto the partial sums in C
	}
	mc := i1 - i0
	full := mc / sgemmMR * sgemmMR // rows in full slivers
	shifted := full < mc && g.m >= sgemmMR
	if full < mc && !shifted {
		sgemmPackA(abuf[full*kc:], g.transA, g.a, g.lda, i0+full, mc-full, pc, kc)
	}
	for jr := j0; jr < j1; jr += sgemmNR {
		bs := bp[(jr/sgemmNR)*kc*sgemmNR:]
		nr := min(sgemmNR, j1-jr)
		pair := j.kern.tile2 != nil && jr+2*sgemmNR <= j1 // two full slivers: the 6×32 kernel
		for ir := 0; ir < mc; ir += sgemmMR {
			as, rs, ks := abuf[ir*kc:], 1, sgemmMR
			mr := min(sgemmMR, mc-ir)
			skip := 0 // rows of the tile above the sliver's own (shifted)
			switch {
			case ir < full:
				as, rs, ks = j.inPlaceA(i0+ir, pc)
			case shifted:
				skip = sgemmMR - mr
				as, rs, ks = j.inPlaceA(i1-sgemmMR, pc)
			}
			ci := (i0+ir)*g.ldc + jc + jr
			switch {
			case pair && mr == sgemmMR:
				j.kern.tile2(kc, as, rs, ks, bs, bs[kc*sgemmNR:], g.c[ci:], g.ldc, g.alpha, beta)
			case pair:
				j.edge(kc, as, rs, ks, bs, tmp, ci, skip, mr, sgemmNR, beta)
				j.edge(kc, as, rs, ks, bs[kc*sgemmNR:], tmp, ci+sgemmNR, skip, mr, sgemmNR, beta)
			case nr == sgemmNR && j.kern.tile12 != nil && ir+2*sgemmMR <= full:
				// Two full A slivers, both in place or both packed: the 12×16 kernel.
				as1, _, _ := j.inPlaceA(i0+ir+sgemmMR, pc)
				j.kern.tile12(kc, as, as1, rs, ks, bs, g.c[ci:], g.ldc, g.alpha, beta)
				ir += sgemmMR
			case mr == sgemmMR && nr == sgemmNR:
				tile(kc, as, rs, ks, bs, g.c[ci:], g.ldc, g.alpha, beta)
			default:
				j.edge(kc, as, rs, ks, bs, tmp, ci, skip, mr, nr, beta)
			}
		}
		if pair {
			jr += sgemmNR
		}
	}
}

// inPlaceA is the full A sliver of rows [i, i+MR) at depth pc read where
// it is stored: element (r,p) at as[r·rs + p·ks]. A stored (m,k) has its
// rows lda apart (rs = lda, ks = 1); stored (k,m), its 6 values of one k
// step are adjacent and its k steps lda apart (rs = 1, ks = lda).
func (j *sgemmJob) inPlaceA(i, pc int) (as []float32, rs, ks int) {
	if j.transA {
		return j.a[pc*j.lda+i:], 1, j.lda
	}
	return j.a[i*j.lda+pc:], j.lda, 1
}

// edge is a tile of C cut by the matrix's edge (mr ≤ MR rows, nr ≤ NR
// columns at c[ci]): the full tile is computed into tmp and only the valid
// part kept, its rows from skip on (a sliver read from skip rows above
// the first row it is for).
func (j *sgemmJob) edge(kc int, as []float32, rs, ks int, bs, tmp []float32, ci, skip, mr, nr int, beta float32) {
	g := &j.sgemmArgs
	j.kern.tile(kc, as, rs, ks, bs, tmp, sgemmNR, 1, 0)
	for r := range mr {
		row := g.c[ci+r*g.ldc : ci+r*g.ldc+nr]
		for c := range row {
			v := g.alpha * tmp[(skip+r)*sgemmNR+c]
			if beta != 0 {
				v += beta * row[c]
			}
			row[c] = v
		}
	}
}

// sgemmScaleC is the whole product when α = 0 or k = 0: C = β·C, with β = 0
// writing zeros (NaN in C is overwritten, as BLAS specifies).
func sgemmScaleC(g *sgemmArgs) {
	if g.beta == 1 {
		return
	}
	for i := 0; i < g.m; i++ {
		row := g.c[i*g.ldc : i*g.ldc+g.n]
		if g.beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= g.beta
		}
	}
}
