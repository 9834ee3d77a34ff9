package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
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
}

// sgemmGo is the portable set; sgemmAVX2 and sgemmAVX512 the assembly
// ones, set at start-up in amd64 builds without the noasm tag
// (sgemm_amd64.go), and sgemmNEON in arm64 builds without it
// (neon_arm64.go); nil elsewhere.
var (
	sgemmGo = &sgemmKernelSet{name: "go", tile: sgemmTileGo, dot: sdotGo, axpy: saxpyGo,
		pack16: sgemmPack16Go}
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
type sgemmJob struct {
	sgemmArgs
	kern   *sgemmKernelSet
	grid   sgemmGrid
	bp     []float32 // the packed B panel of the current (jc, pc)
	jc, nc int       // current B panel: columns [jc, jc+nc)
	pc, kc int       // current K panel: depth [pc, pc+kc)
	kBeta  float32   // β for this K panel: the caller's, then 1
	next   atomic.Int64
	wg     sync.WaitGroup
}

var sgemmJobs = sync.Pool{New: func() any { return new(sgemmJob) }}

// sgemmBlocked computes C = α·op(A)·op(B) + β·C for k ≥ 1 and α ≠ 0 with the
// given kernels on up to workers goroutines. Loop order, outer to
// inner: B panels of NC columns, K panels of KC (B packed once per panel,
// shared), then tasks of the grid (each reads or packs its rows of A), then
// NR-column slivers, then MR-row slivers. Each C element is owned by one task and summed in the
// fixed order p = 0..k-1, so the result does not depend on workers.
func sgemmBlocked(args sgemmArgs, kern *sgemmKernelSet, workers int) {
	j := sgemmJobs.Get().(*sgemmJob)
	j.sgemmArgs, j.kern = args, kern
	for j.jc = 0; j.jc < j.n; j.jc += sgemmNC {
		j.nc = min(sgemmNC, j.n-j.jc)
		j.grid = sgemmPlan(j.m, j.nc, workers)
		for j.pc = 0; j.pc < j.k; j.pc += sgemmKC {
			j.kc = min(sgemmKC, j.k-j.pc)
			j.kBeta = j.beta
			if j.pc > 0 {
				j.kBeta = 1 // later K panels add onto the partial sums in C
			}
			bbuf := sgemmPoolB.get(j.kc * ceilDiv(j.nc, sgemmNR) * sgemmNR)
			j.bp = *bbuf
			sgemmPackB(kern, j.bp, j.transB, j.b, j.ldb, j.pc, j.kc, j.jc, j.nc)
			j.run(workers)
			sgemmPoolB.put(bbuf)
		}
	}
	j.a, j.b, j.c, j.bp, j.kern = nil, nil, nil, nil, nil // keep no caller memory alive
	sgemmJobs.Put(j)
}

// run does every task of the grid for the current panels on up to workers
// goroutines, the caller and the pool's helpers (pool.go).
func (j *sgemmJob) run(workers int) {
	workers = min(workers, j.grid.mBlocks*j.grid.nBlocks)
	j.next.Store(0)
	runTask(workers, j, &j.wg)
}

// work takes tasks until none is left, with its own pooled scratch: the A
// block buffer and one tile for the edges.
func (j *sgemmJob) work() {
	abufLen := j.grid.rowsPer * j.kc
	buf := sgemmPoolA.get(abufLen + sgemmMR*sgemmNR)
	abuf, tmp := (*buf)[:abufLen], (*buf)[abufLen:]
	tasks := j.grid.mBlocks * j.grid.nBlocks
	for t := int(j.next.Add(1) - 1); t < tasks; t = int(j.next.Add(1) - 1) {
		i0 := (t / j.grid.nBlocks) * j.grid.rowsPer
		j0 := (t % j.grid.nBlocks) * j.grid.colsPer
		j.block(abuf, tmp, i0, min(i0+j.grid.rowsPer, j.m), j0, min(j0+j.grid.colsPer, j.nc))
	}
	sgemmPoolA.put(buf)
}

// block computes rows [i0,i1) × columns jc+[j0,j1) of C for the current K
// panel from the packed B panel; abuf receives the packed A block and tmp
// (one tile) the edge tiles.
//
// A is not packed, except for a last partial sliver: the kernel reads a
// full sliver in place (inPlaceA), which saves a copy of A that costs as
// much as 15–35% of the kernel time when n is 64..192 (A is then reused
// only n/16 times).
func (j *sgemmJob) block(abuf, tmp []float32, i0, i1, j0, j1 int) {
	g, tile, bp, jc, pc, kc, beta := &j.sgemmArgs, j.kern.tile, j.bp, j.jc, j.pc, j.kc, j.kBeta
	mc := i1 - i0
	full := mc / sgemmMR * sgemmMR // rows in full slivers
	if full < mc {
		sgemmPackA(abuf[full*kc:], g.transA, g.a, g.lda, i0+full, mc-full, pc, kc)
	}
	for jr := j0; jr < j1; jr += sgemmNR {
		bs := bp[(jr/sgemmNR)*kc*sgemmNR:]
		nr := min(sgemmNR, j1-jr)
		pair := j.kern.tile2 != nil && jr+2*sgemmNR <= j1 // two full slivers: the 6×32 kernel
		for ir := 0; ir < mc; ir += sgemmMR {
			as, rs, ks := abuf[ir*kc:], 1, sgemmMR
			if ir < full {
				as, rs, ks = j.inPlaceA(i0+ir, pc)
			}
			mr := min(sgemmMR, mc-ir)
			ci := (i0+ir)*g.ldc + jc + jr
			switch {
			case pair && mr == sgemmMR:
				j.kern.tile2(kc, as, rs, ks, bs, bs[kc*sgemmNR:], g.c[ci:], g.ldc, g.alpha, beta)
			case pair:
				j.edge(kc, as, rs, ks, bs, tmp, ci, mr, sgemmNR, beta)
				j.edge(kc, as, rs, ks, bs[kc*sgemmNR:], tmp, ci+sgemmNR, mr, sgemmNR, beta)
			case nr == sgemmNR && j.kern.tile12 != nil && ir+2*sgemmMR <= full:
				// Two full A slivers, both in place or both packed: the 12×16 kernel.
				as1, _, _ := j.inPlaceA(i0+ir+sgemmMR, pc)
				j.kern.tile12(kc, as, as1, rs, ks, bs, g.c[ci:], g.ldc, g.alpha, beta)
				ir += sgemmMR
			case mr == sgemmMR && nr == sgemmNR:
				tile(kc, as, rs, ks, bs, g.c[ci:], g.ldc, g.alpha, beta)
			default:
				j.edge(kc, as, rs, ks, bs, tmp, ci, mr, nr, beta)
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
// part kept.
func (j *sgemmJob) edge(kc int, as []float32, rs, ks int, bs, tmp []float32, ci, mr, nr int, beta float32) {
	g := &j.sgemmArgs
	j.kern.tile(kc, as, rs, ks, bs, tmp, sgemmNR, 1, 0)
	for r := range mr {
		row := g.c[ci+r*g.ldc : ci+r*g.ldc+nr]
		for c := range row {
			v := g.alpha * tmp[r*sgemmNR+c]
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
