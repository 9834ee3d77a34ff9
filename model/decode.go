package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"arew/kernels"
)

// Decoder is the rollout forward: the same network as the training graph,
// in plain Go over the same weight memory (it reads m.Params on every call:
// no copy, no graph), with a key/value cache per sequence so that each new
// token costs one position. It holds up to MaxSeqs sequences ("slots"),
// each at its own position; one Append advances any subset of them.
//
// The cache holds keys and values computed with the weights of the time:
// after an optimiser step, Reset every slot before decoding again. A
// Decoder is used by one goroutine at a time, and the weights must not
// change while it runs.
type Decoder struct {
	m       *Model
	c       Config
	maxSeqs int
	pos     []int // tokens held by each slot (its next position)

	// The cache, per layer l, in the layout of kernels.CachedAttention:
	// k[l] is (MaxSeqs, Heads, hdp, ld), each head's keys transposed
	// (element i of slot s's key at position t at ((s·H + h)·hdp + i)·ld + t),
	// v[l] is (MaxSeqs, Heads, Context, hdp); hdp is the head size and ld the
	// context, each rounded up to 8, the padding zero.
	k, v    [][]float32
	hdp, ld int
	names   []LayerNames // Layer(l) for each block, built once

	// Scratch, grown to the rows of the largest call and reused.
	rowSeq, rowPos []int
	rowTok         []int32
	x, h, qkv, att []float32     // (rows,C), (rows,C), (rows,3C), (rows,C)
	fc             []float32     // (rows,M)
	scores         []float32     // (workers, ld + 2·hdp): attention scratch
	attTask        attentionTask // attention's parallel split (Decoder.attention)
	mean, rstd     []float64     // (rows)
	last           []float32     // (seqs, C) final-normed last rows
	logits         []float32     // (seqs, V), LM head only
	values         []float32     // (seqs), value head only
	seen           []bool        // (MaxSeqs) duplicate check

	// allRows carries every row through the last block (the reference
	// that lastRows is tested against); false in use.
	allRows bool
}

// NewDecoder allocates a decoder of maxSeqs slots, all empty. The cache
// takes 2·Layers·maxSeqs·Context·C float32.
func (m *Model) NewDecoder(maxSeqs int) (*Decoder, error) {
	c := m.Config
	if maxSeqs < 1 {
		return nil, fmt.Errorf("decoder: maxSeqs must be ≥ 1, got %d", maxSeqs)
	}
	d := &Decoder{m: m, c: c, maxSeqs: maxSeqs, pos: make([]int, maxSeqs), seen: make([]bool, maxSeqs),
		hdp: roundUp8(c.DModel / c.Heads), ld: roundUp8(c.Context)}
	for l := range c.Layers {
		d.names = append(d.names, Layer(l))
		d.k = append(d.k, make([]float32, maxSeqs*c.Heads*d.hdp*d.ld))
		d.v = append(d.v, make([]float32, maxSeqs*c.Heads*c.Context*d.hdp))
	}
	return d, nil
}

// MaxSeqs is the number of slots.
func (d *Decoder) MaxSeqs() int { return d.maxSeqs }

// Pos is the number of tokens slot seq holds (the position its next token
// takes).
func (d *Decoder) Pos(seq int) int { return d.pos[seq] }

// Reset empties slot seq (a new sequence starts there).
func (d *Decoder) Reset(seq int) error {
	if seq < 0 || seq >= d.maxSeqs {
		return fmt.Errorf("decoder: slot %d outside [0, %d)", seq, d.maxSeqs)
	}
	d.pos[seq] = 0
	return nil
}

// ResetAll empties every slot.
func (d *Decoder) ResetAll() { clear(d.pos) }

// Prefill feeds a prompt to slot seq (appending to what it holds) and
// returns the logits (V) after its last token.
func (d *Decoder) Prefill(seq int, prompt []int32) ([]float32, error) {
	return d.Append([]int{seq}, [][]int32{prompt})
}

// Step feeds one token to each of the slots seqs (each at its own
// position) and returns the logits (len(seqs), V), row i for seqs[i].
func (d *Decoder) Step(seqs []int, tokens []int32) ([]float32, error) {
	if len(tokens) != len(seqs) {
		return nil, fmt.Errorf("decoder step: %d slots but %d tokens", len(seqs), len(tokens))
	}
	chunks := make([][]int32, len(seqs))
	for i := range tokens {
		chunks[i] = tokens[i : i+1]
	}
	return d.Append(seqs, chunks)
}

// Append feeds tokens[i] (≥ 1 tokens) to slot seqs[i], for distinct slots,
// as one batch: all new positions of all slots go through each matmul
// together. It returns the logits (len(seqs), V) after each slot's last new
// token (nil for a model without an LM head; Values has the value head's),
// in a buffer reused by the next call. A slot would pass Context →
// error; every check is made before any work, so an error changes nothing.
func (d *Decoder) Append(seqs []int, tokens [][]int32) ([]float32, error) {
	if err := d.plan(seqs, tokens); err != nil {
		return nil, err
	}
	c := d.c
	C, rows := c.DModel, len(d.rowSeq)
	wte, wpe := d.m.param(NameTokenEmbedding), d.m.param(NamePositionEmbedding)
	for r := range rows { // x[r] = wte[token] + wpe[position]
		tok := wte[int(d.rowTok[r])*C : int(d.rowTok[r]+1)*C]
		pos := wpe[d.rowPos[r]*C : (d.rowPos[r]+1)*C]
		xr := d.x[r*C : (r+1)*C]
		for j := range xr {
			xr[j] = tok[j] + pos[j]
		}
	}
	for l := 0; l < c.Layers; l++ {
		var err error
		if rows, err = d.block(l, rows, tokens); err != nil {
			return nil, err
		}
	}
	// The final LayerNorm and the LM head, on each slot's last row only:
	// the last block left them in rows 0 … n−1 (lastRows; the all-rows
	// reference moves them there now).
	n := len(seqs)
	if d.allRows {
		d.lastRows(tokens)
	}
	copy(d.last[:n*C], d.x[:n*C])
	if err := kernels.LayerNormForward(d.last, n, C, d.m.param(NameFinalNormWeight), d.m.param(NameFinalNormBias),
		LayerNormEps, d.last, d.mean[:n], d.rstd[:n]); err != nil {
		return nil, err
	}
	if c.LMHead {
		matMul(d.last, d.m.param(NameLMHead), d.logits, n, C, c.Vocab, false)
	}
	if c.ValueHead {
		matMul(d.last, d.m.param(NameValueWeight), d.values, n, C, 1, false)
		addRows(d.values, d.m.param(NameValueBias), n, 1)
	}
	for i, s := range seqs {
		d.pos[s] += len(tokens[i])
	}
	return d.logits, nil
}

// Values is the value head's output (len(seqs)) after each slot's last
// token of the last Append, or nil without a value head; reused by the
// next call.
func (d *Decoder) Values() []float32 {
	if !d.c.ValueHead {
		return nil
	}
	return d.values
}

// plan validates a call and lays out its rows (slot, position, token),
// growing the scratch to fit.
func (d *Decoder) plan(seqs []int, tokens [][]int32) error {
	if len(seqs) != len(tokens) || len(seqs) == 0 {
		return fmt.Errorf("decoder: %d slots and %d token lists (want equal, ≥ 1)", len(seqs), len(tokens))
	}
	clear(d.seen)
	d.rowSeq, d.rowPos, d.rowTok = d.rowSeq[:0], d.rowPos[:0], d.rowTok[:0]
	for i, s := range seqs {
		switch {
		case s < 0 || s >= d.maxSeqs:
			return fmt.Errorf("decoder: slot %d outside [0, %d)", s, d.maxSeqs)
		case d.seen[s]:
			return fmt.Errorf("decoder: slot %d given twice in one call", s)
		case len(tokens[i]) == 0:
			return fmt.Errorf("decoder: no tokens for slot %d", s)
		case d.pos[s]+len(tokens[i]) > d.c.Context:
			return fmt.Errorf("decoder: slot %d holds %d tokens; %d more would pass the context of %d",
				s, d.pos[s], len(tokens[i]), d.c.Context)
		}
		d.seen[s] = true
		if err := checkIDs("token", tokens[i], d.c.Vocab); err != nil {
			return fmt.Errorf("decoder: slot %d: %w", s, err)
		}
		for j, t := range tokens[i] {
			d.rowSeq = append(d.rowSeq, s)
			d.rowPos = append(d.rowPos, d.pos[s]+j)
			d.rowTok = append(d.rowTok, t)
		}
	}
	rows, C := len(d.rowSeq), d.c.DModel
	grow := func(b []float32, n int) []float32 {
		if cap(b) < n {
			return make([]float32, n)
		}
		return b[:n]
	}
	d.x, d.h, d.att = grow(d.x, rows*C), grow(d.h, rows*C), grow(d.att, rows*C)
	d.qkv, d.fc = grow(d.qkv, rows*3*C), grow(d.fc, rows*d.c.MLP)
	d.last = grow(d.last, len(seqs)*C)
	if d.c.LMHead {
		d.logits = grow(d.logits, len(seqs)*d.c.Vocab)
	}
	if d.c.ValueHead {
		d.values = grow(d.values, len(seqs))
	}
	if cap(d.mean) < rows {
		d.mean, d.rstd = make([]float64, rows), make([]float64, rows)
	}
	d.mean, d.rstd = d.mean[:rows], d.rstd[:rows]
	return nil
}

// block runs block l on the call's rows x (rows, C), in place, and returns
// the rows it leaves in x: all of them, except in the last block, which
// after caching every row's keys and values carries on with each slot's
// last row only (lastRows), the one row whose output the heads read.
func (d *Decoder) block(l, rows int, tokens [][]int32) (int, error) {
	c, n := d.c, d.names[l]
	C, M := c.DModel, c.MLP
	p := d.m.param
	if err := kernels.LayerNormForward(d.x, rows, C, p(n.Norm1Weight), p(n.Norm1Bias), LayerNormEps, d.h, d.mean, d.rstd); err != nil {
		return 0, err
	}
	matMul(d.h, p(n.AttnWeight), d.qkv, rows, C, 3*C, false)
	addRows(d.qkv, p(n.AttnBias), rows, 3*C)
	d.cache(l, rows) // this call's keys and values first: rows may attend to each other
	if l == c.Layers-1 && !d.allRows {
		rows = d.lastRows(tokens)
	}
	d.attention(l, rows)
	matMul(d.att, p(n.ProjWeight), d.x, rows, C, C, true) // x += att·Wproj + b
	addRows(d.x, p(n.ProjBias), rows, C)
	if err := kernels.LayerNormForward(d.x, rows, C, p(n.Norm2Weight), p(n.Norm2Bias), LayerNormEps, d.h, d.mean, d.rstd); err != nil {
		return 0, err
	}
	matMul(d.h, p(n.FCWeight), d.fc, rows, C, M, false)
	addRows(d.fc, p(n.FCBias), rows, M)
	if err := kernels.GELUForward(d.fc[:rows*M], d.fc[:rows*M]); err != nil {
		return 0, err
	}
	matMul(d.fc, p(n.FCProjWeight), d.x, rows, M, C, true) // x += gelu·Wfcproj + b
	addRows(d.x, p(n.FCProjB), rows, C)
	return rows, nil
}

// lastRows moves each slot's last row of the call (its residual x, its
// query, its slot and position) to row i, for the i-th slot of the call,
// and returns the number of slots: what the last block computes after its
// keys and values are cached. The other rows' queries, attention, MLP and
// heads feed nothing, since no later layer reads them and the heads read
// only the last rows. Every step from here is row by row (each row's
// matrix products summed in the same order whatever the number of rows,
// each row's attention over its own slot's cache, LayerNorm per row), so
// the last rows come out bitwise as when every row is carried
// (TestDecoderLastRowsBitwise). Row i's source is at or after i, and the
// sources increase, so moving in order overwrites nothing still needed.
func (d *Decoder) lastRows(tokens [][]int32) int {
	C := d.c.DModel
	r := 0
	for i := range tokens {
		r += len(tokens[i])
		if src := r - 1; src != i {
			copy(d.x[i*C:(i+1)*C], d.x[src*C:(src+1)*C])
			copy(d.qkv[i*3*C:(i+1)*3*C], d.qkv[src*3*C:(src+1)*3*C])
			d.rowSeq[i], d.rowPos[i], d.rowTok[i] = d.rowSeq[src], d.rowPos[src], d.rowTok[src]
		}
	}
	return len(tokens)
}

// cache writes the keys and values of the call's rows for layer l into
// the cache layout (see Decoder.k).
func (d *Decoder) cache(l, rows int) {
	c := d.c
	C, H := c.DModel, c.Heads
	hd := C / H
	for r := range rows {
		s, t := d.rowSeq[r], d.rowPos[r]
		k, v := d.qkv[r*3*C+C:r*3*C+2*C], d.qkv[r*3*C+2*C:r*3*C+3*C]
		for h := range H {
			kt := d.k[l][(s*H+h)*d.hdp*d.ld:]
			for i, x := range k[h*hd : (h+1)*hd] {
				kt[i*d.ld+t] = x
			}
			copy(d.v[l][((s*H+h)*c.Context+t)*d.hdp:][:hd], v[h*hd:(h+1)*hd])
		}
	}
}

// attention fills d.att (rows, C) for layer l: for each row r (slot s at
// position t) and head h, with q the row's query and k, v the slot's cached
// keys and values (this call's included),
//
//	a_u = q·k_u/√hd (u ≤ t),   att_r = Σ_{u≤t} softmax(a)_u · v_u
//
// by kernels.CachedAttention: the row max subtracted before exp and the
// normaliser summed in float64, as the training graph's attention kernel
// does. (row, head) pairs are independent and split over the kernels' worker
// pool (kernels.ParallelParts); each is computed in the same order whatever
// the split.
func (d *Decoder) attention(l, rows int) {
	c := d.c
	C, H := c.DModel, c.Heads
	hd := C / H
	scale := float32(1 / math.Sqrt(float64(hd)))
	work := 0
	for r := range rows {
		work += (d.rowPos[r] + 1) * 2 * C
	}
	workers := min(runtime.GOMAXPROCS(0), rows*H, max(1, work/attentionMinWork))
	per := d.ld + 2*d.hdp // scores, padded query, padded output
	if len(d.scores) < workers*per {
		d.scores = make([]float32, workers*per)
	}
	pairs := rows * H
	if workers <= 1 {
		d.attendPairs(l, 0, 0, pairs, scale)
		return
	}
	d.attTask = attentionTask{d: d, l: l, chunk: (pairs + workers - 1) / workers, pairs: pairs, scale: scale}
	kernels.ParallelParts(workers, &d.attTask)
}

// attentionTask is attention's split over the kernels' worker pool: part w
// is the w-th chunk of (row, head) pairs, with scratch w. It lives in the
// Decoder, so handing it over allocates nothing.
type attentionTask struct {
	d               *Decoder
	l, chunk, pairs int
	scale           float32
}

func (a *attentionTask) RunPart(w int) {
	if lo, hi := w*a.chunk, min((w+1)*a.chunk, a.pairs); lo < hi {
		a.d.attendPairs(a.l, w, lo, hi, a.scale)
	}
}

// attendPairs is attention for the (row, head) pairs [lo, hi) of layer l
// (pair = row·H + head), with scratch w of d.scores.
func (d *Decoder) attendPairs(l, w, lo, hi int, scale float32) {
	c := d.c
	C, H := c.DModel, c.Heads
	hd := C / H
	per := d.ld + 2*d.hdp
	buf := d.scores[w*per : (w+1)*per]
	sc, q, out := buf[:d.ld], buf[d.ld:d.ld+d.hdp], buf[d.ld+d.hdp:]
	for pair := lo; pair < hi; pair++ {
		r, h := pair/H, pair%H
		s, t := d.rowSeq[r], d.rowPos[r]
		copy(q, d.qkv[r*3*C+h*hd:r*3*C+(h+1)*hd]) // lanes past hd stay 0
		head := s*H + h
		kt := d.k[l][head*d.hdp*d.ld : (head+1)*d.hdp*d.ld]
		v := d.v[l][head*c.Context*d.hdp : (head+1)*c.Context*d.hdp]
		if err := kernels.CachedAttention(q, kt, v, d.ld, t+1, scale, sc, out); err != nil {
			panic(err) // the sizes come from the config: a bug here
		}
		copy(d.att[r*C+h*hd:r*C+(h+1)*hd], out)
	}
}

func roundUp8(n int) int { return (n + 7) &^ 7 }

// attentionMinWork is the work (multiply-adds) below which splitting the
// decoder's attention over goroutines costs more than it saves.
const attentionMinWork = 1 << 16

// ErrNonFiniteLogits: the policy produced a NaN or ±Inf logit, which
// means its weights have diverged; no token can be sampled.
var ErrNonFiniteLogits = errors.New("non-finite logits")

// Sampler draws the next token from a row of logits z (V).
//
//	Greedy:       the argmax (lowest index on ties); draws nothing from the RNG
//	otherwise:    q(j) ∝ exp(z_j / Temperature) over the TopK largest logits
//	              (all V when TopK is 0; ties at the cut kept in index order),
//	              one rng.Float64() per draw (inverse CDF, summed in index order)
//
// Whatever the sampling rule, Sample returns in LogProb the log-probability
// of the token under the policy itself, log π(tok) = z_tok − log Σ_j exp(z_j)
// (temperature 1, no truncation), in float64: the quantity the training
// graph's Logp computes, so the PPO ratio π_new/π_old starts at 1 (up to
// float32 rounding of the logits). SampleLogProb is log q(tok) under the
// distribution actually sampled from (0 for greedy); the two differ only
// when Temperature ≠ 1 or TopK truncates, and then the rollouts are
// off-policy for π, which the PPO ratio does not correct.
//
// A Sampler keeps scratch space: use one per goroutine.
type Sampler struct {
	Temperature float64 // > 0 unless Greedy
	TopK        int     // ≥ 0; 0 keeps every token
	Greedy      bool

	order []int     // scratch: indices sorted by logit
	q     []float64 // scratch: unnormalised sampling weights
}

// Sampled is one draw.
type Sampled struct {
	Token         int32
	LogProb       float64 // log π(Token) at temperature 1 over all V tokens
	SampleLogProb float64 // log q(Token) under the sampling rule actually used
}

// Validate reports bad settings.
func (s *Sampler) Validate() error {
	if s.TopK < 0 {
		return fmt.Errorf("sampler: top-k must be ≥ 0, got %d", s.TopK)
	}
	if !s.Greedy && !(s.Temperature > 0 && !math.IsInf(s.Temperature, 1)) {
		return fmt.Errorf("sampler: temperature must be finite and > 0, got %v", s.Temperature)
	}
	return nil
}

// Sample draws one token from logits (V); rng may be nil when Greedy.
// Non-finite logits are an error (wrapping ErrNonFiniteLogits).
func (s *Sampler) Sample(rng *rand.Rand, logits []float32) (Sampled, error) {
	if err := s.Validate(); err != nil {
		return Sampled{}, err
	}
	v := len(logits)
	if v == 0 {
		return Sampled{}, fmt.Errorf("sampler: no logits")
	}
	best, mx := 0, math.Inf(-1)
	for j, z := range logits {
		zf := float64(z)
		if math.IsNaN(zf) || math.IsInf(zf, 0) {
			return Sampled{}, fmt.Errorf("sampler: logit %d is %v: %w", j, z, ErrNonFiniteLogits)
		}
		if zf > mx {
			best, mx = j, zf
		}
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - mx)
	}
	lse := mx + math.Log(sum)
	if s.Greedy {
		return Sampled{Token: int32(best), LogProb: float64(logits[best]) - lse}, nil
	}
	if rng == nil {
		return Sampled{}, fmt.Errorf("sampler: sampling needs an RNG")
	}

	// The kept set: every index, or the TopK largest (stable: ties by index).
	s.order = s.order[:0]
	for j := range v {
		s.order = append(s.order, j)
	}
	if s.TopK > 0 && s.TopK < v {
		slices.SortStableFunc(s.order, func(a, b int) int {
			switch {
			case logits[a] > logits[b]:
				return -1
			case logits[a] < logits[b]:
				return 1
			}
			return 0
		})
		s.order = s.order[:s.TopK]
		slices.Sort(s.order)
	}
	if cap(s.q) < v {
		s.q = make([]float64, v)
	}
	q := s.q[:len(s.order)]
	var qsum float64
	for i, j := range s.order {
		q[i] = math.Exp((float64(logits[j]) - mx) / s.Temperature)
		qsum += q[i]
	}
	u := rng.Float64() * qsum
	pick, acc := -1, 0.0
	for i, w := range q {
		acc += w
		if w > 0 {
			pick = i // rounding can leave u ≥ the running sum: keep the last positive
		}
		if u < acc {
			break
		}
	}
	tok := s.order[pick]
	return Sampled{
		Token:         int32(tok),
		LogProb:       float64(logits[tok]) - lse,
		SampleLogProb: math.Log(q[pick] / qsum),
	}, nil
}
