package engine

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleTensors() []NamedTensor {
	return []NamedTensor{
		{Name: "blocks.0.w", Shape: []int{2, 3}, Data: []float32{1, -2, 3.5, float32(math.Inf(1)), 0, -1e-30}},
		{Name: "tokens", Shape: []int{4}, Data: []int32{0, -1, math.MaxInt32, 7}},
		{Name: "step", Shape: []int{}, Data: []int64{math.MinInt64}},
		{Name: "scale", Shape: []int{}, Data: []float32{0.25}},
		{Name: "empty", Shape: []int{0, 3}, Data: []float32{}},
		{Name: "ünïcode <&>", Shape: []int{1, 1, 1}, Data: []float32{42}},
	}
}

func TestSafetensorsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ckpt.safetensors")
	in := sampleTensors()
	meta := map[string]string{"format": "pt", "run": "héllo \"quoted\"", "seed": "7"}
	require.NoError(t, SaveSafetensors(path, in, meta))

	out, gotMeta, err := LoadSafetensors(path)
	require.NoError(t, err)
	assert.Equal(t, meta, gotMeta)
	require.Len(t, out, len(in))
	for i := range in {
		assert.Equal(t, in[i].Name, out[i].Name)
		assert.Equal(t, in[i].Shape, out[i].Shape, in[i].Name)
		assert.Equal(t, in[i].Data, out[i].Data, in[i].Name)
	}
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())

	// No metadata: no "__metadata__" key, and nil back.
	require.NoError(t, SaveSafetensors(path, in[:1], nil))
	_, gotMeta, err = LoadSafetensors(path)
	require.NoError(t, err)
	assert.Nil(t, gotMeta)
}

// The exact bytes of a tiny file, written out by hand from the format:
// header length (u64 LE), the JSON header padded with spaces to a multiple
// of 8 bytes from the file start, then each tensor's little-endian data.
func TestSafetensorsByteExactLayout(t *testing.T) {
	tensors := []NamedTensor{
		{Name: "b", Shape: []int{2}, Data: []int32{1, -2}},
		{Name: "a", Shape: []int{1, 2}, Data: []float32{1.5, -2}},
	}
	header := `{"__metadata__":{"step":"3"},` +
		`"b":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},` +
		`"a":{"dtype":"F32","shape":[1,2],"data_offsets":[8,16]}}` +
		`      ` // 138 bytes of JSON + 6 spaces: data starts at byte 8+144 = 152
	want := []byte{0x90, 0, 0, 0, 0, 0, 0, 0} // 144
	want = append(want, header...)
	want = append(want,
		0x01, 0x00, 0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, // int32 1, −2
		0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0, // float32 1.5, −2
	)
	var buf bytes.Buffer
	require.NoError(t, WriteSafetensors(&buf, tensors, map[string]string{"step": "3"}))
	assert.Equal(t, want, buf.Bytes())

	got, meta, err := ReadSafetensors(bytes.NewReader(want), int64(len(want)))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"step": "3"}, meta)
	// Returned in the order of their data.
	assert.Equal(t, tensors, got)
}

// A file written once by an independent Python writer (struct + numpy,
// following the reference layout: tensors sorted by dtype alignment then
// name, header padded to 8 bytes) — see testdata/gen_safetensors.py.
func TestSafetensorsReadsPythonWrittenFile(t *testing.T) {
	got, meta, err := LoadSafetensors(filepath.Join("testdata", "python_written.safetensors"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt", "writer": "gen_safetensors.py"}, meta)
	byName := map[string]NamedTensor{}
	for _, tt := range got {
		byName[tt.Name] = tt
	}
	require.Len(t, byName, 3)
	assert.Equal(t, []int{2, 3}, byName["w"].Shape)
	assert.Equal(t, []float32{0, 0.5, -1, 1.5, -2, 1e-3}, byName["w"].Data)
	assert.Equal(t, []int{3}, byName["ids"].Shape)
	assert.Equal(t, []int64{-1, 0, 1 << 40}, byName["ids"].Data)
	assert.Equal(t, []int{}, byName["n"].Shape)
	assert.Equal(t, []int32{-7}, byName["n"].Data)
}

func TestSafetensorsTruncated(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteSafetensors(&buf, sampleTensors(), map[string]string{"k": "v"}))
	full := buf.Bytes()
	hlen := int(binary.LittleEndian.Uint64(full))
	for _, cut := range []int{0, 3, 8, 8 + hlen/2, 8 + hlen, 8 + hlen + 5, len(full) - 1} {
		_, _, err := ReadSafetensors(bytes.NewReader(full[:cut]), int64(cut))
		assert.ErrorContains(t, err, "truncated", "cut at %d of %d", cut, len(full))
	}
	// Extra bytes after the data are not covered by any tensor.
	long := append(append([]byte(nil), full...), 0, 0, 0, 0)
	_, _, err := ReadSafetensors(bytes.NewReader(long), int64(len(long)))
	assert.ErrorContains(t, err, "cover")

	// The same through a file.
	path := filepath.Join(t.TempDir(), "short.safetensors")
	require.NoError(t, os.WriteFile(path, full[:len(full)-4], 0o644))
	_, _, err = LoadSafetensors(path)
	assert.ErrorContains(t, err, "short.safetensors")
	assert.ErrorContains(t, err, "truncated")
}

// rawFile builds a file from a header string and n data bytes, unpadded.
func rawFile(header string, data int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, data)...)
}

// hostileFiles are malformed files and the error each must give; they also
// seed FuzzLoadSafetensors.
var hostileFiles = []struct {
	name string
	file []byte
	want string
}{
	{"header longer than file", binary.LittleEndian.AppendUint64(nil, 1000), "beyond the end"},
	{"header over the cap", append(binary.LittleEndian.AppendUint64(nil, 1<<40), "{}"...), "limit"},
	{"not UTF-8", rawFile("{\"\xff\":{}}", 0), "UTF-8"},
	{"not an object", rawFile(`["a"]`, 0), "start with '{'"},
	{"empty name", rawFile(`{"":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, 4), "empty name"},
	{"bad JSON", rawFile(`{"a":{"dtype":"F32",}}`, 0), "tensor \"a\""},
	{"trailing garbage", rawFile(`{} x`, 0), "trailing"},
	{"duplicate name", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), "duplicate"},
	{"negative dim", rawFile(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, 4), "bad dimension"},
	{"fractional dim", rawFile(`{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}`, 4), "bad dimension"},
	{"huge shape", rawFile(`{"a":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,4]}}`, 4), "more than"},
	{"offsets past data", rawFile(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, 8), "outside"},
	{"offsets reversed", rawFile(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}}`, 4), "end before"},
	{"shape vs bytes", rawFile(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8), "needs 12 bytes"},
	{"overlap", rawFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), "overlap"},
	{"hole", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, 12), "hole"},
	{"not covering", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 8), "cover"},
	{"unsupported dtype", rawFile(`{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`, 4), "unsupported dtype"},
	{"missing field", rawFile(`{"a":{"dtype":"F32","shape":[1]}}`, 4), "needs dtype"},
	{"metadata not strings", rawFile(`{"__metadata__":{"k":1}}`, 0), "strings"},
	{"offsets not a pair", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}}`, 4), "[begin, end]"},
}

func TestSafetensorsRejectsHostileFiles(t *testing.T) {
	for _, tc := range hostileFiles {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() {
				_, _, err = ReadSafetensors(bytes.NewReader(tc.file), int64(len(tc.file)))
			})
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestWriteSafetensorsRejectsBadTensors(t *testing.T) {
	for _, tc := range []struct {
		name string
		ts   []NamedTensor
		want string
	}{
		{"empty name", []NamedTensor{{Name: "", Shape: []int{1}, Data: []float32{1}}}, "empty name"},
		{"reserved name", []NamedTensor{{Name: "__metadata__", Shape: []int{1}, Data: []float32{1}}}, "reserved"},
		{"duplicate", []NamedTensor{{Name: "a", Shape: []int{1}, Data: []float32{1}}, {Name: "a", Shape: []int{1}, Data: []int32{1}}}, "duplicate"},
		{"negative dim", []NamedTensor{{Name: "a", Shape: []int{-1}, Data: []float32{}}}, "negative"},
		{"length mismatch", []NamedTensor{{Name: "a", Shape: []int{2, 2}, Data: []float32{1, 2, 3}}}, "needs 4 values"},
		{"unsupported type", []NamedTensor{{Name: "a", Shape: []int{1}, Data: []float64{1}}}, "unsupported"},
		{"overflowing shape", []NamedTensor{{Name: "a", Shape: []int{1 << 32, 1 << 32}, Data: []float32{}}}, "too large"},
	} {
		var buf bytes.Buffer
		err := WriteSafetensors(&buf, tc.ts, nil)
		assert.ErrorContains(t, err, tc.want, tc.name)
		assert.Zero(t, buf.Len(), "%s: nothing is written for a bad tensor", tc.name)
	}
}

func paramStore(t *testing.T, shapes map[string][]int, order ...string) *ParamStore {
	s := NewParamStore()
	for _, name := range order {
		_, err := s.Add(name, shapes[name], Normal(1))
		require.NoError(t, err)
	}
	return s
}

func TestSaveLoadParams(t *testing.T) {
	shapes := map[string][]int{"emb": {5, 4}, "ln.g": {4}, "head": {4, 5}}
	src := paramStore(t, shapes, "emb", "ln.g", "head")
	src.Init(1)
	path := filepath.Join(t.TempDir(), "params.safetensors")
	require.NoError(t, SaveParams(src, path, map[string]string{"step": "10"}))

	dst := paramStore(t, shapes, "head", "emb", "ln.g") // order does not matter
	meta, err := LoadParams(dst, path)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"step": "10"}, meta)
	for _, p := range src.Params() {
		q, _ := dst.Get(p.Name)
		assert.Equal(t, p.Data(), q.Data(), p.Name)
	}
}

func TestLoadParamsMismatchChangesNothing(t *testing.T) {
	dir := t.TempDir()
	good := map[string][]int{"w": {2, 3}, "b": {3}}
	src := paramStore(t, good, "w", "b")
	src.Init(2)
	path := filepath.Join(dir, "p.safetensors")
	require.NoError(t, SaveParams(src, path, nil))

	intPath := filepath.Join(dir, "int.safetensors")
	require.NoError(t, SaveSafetensors(intPath, []NamedTensor{
		{Name: "w", Shape: []int{2, 3}, Data: make([]int32, 6)},
		{Name: "b", Shape: []int{3}, Data: make([]float32, 3)},
	}, nil))

	for _, tc := range []struct {
		name   string
		shapes map[string][]int
		order  []string
		path   string
		want   []string
	}{
		{"wrong shape", map[string][]int{"w": {3, 2}, "b": {3}}, []string{"w", "b"}, path, []string{`"w" has shape [2 3], want [3 2]`}},
		{"missing and extra", map[string][]int{"w": {2, 3}, "c": {3}}, []string{"w", "c"}, path, []string{`"b" is in the file but not a parameter`, `parameter "c" is missing`}},
		{"wrong dtype", good, []string{"w", "b"}, intPath, []string{`"w" is I32, want F32`}},
	} {
		dst := paramStore(t, tc.shapes, tc.order...)
		dst.Init(99)
		before := map[string][]float32{}
		for _, p := range dst.Params() {
			before[p.Name] = append([]float32(nil), p.Data()...)
		}
		_, err := LoadParams(dst, tc.path)
		for _, w := range tc.want {
			assert.ErrorContains(t, err, w, tc.name)
		}
		for _, p := range dst.Params() {
			assert.Equal(t, before[p.Name], p.Data(), "%s: %s changed", tc.name, p.Name)
		}
	}
}

// A failed write leaves the old file untouched and no temporary file behind.
func TestSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt.safetensors")
	require.NoError(t, SaveSafetensors(path, sampleTensors()[:2], nil))
	old, err := os.ReadFile(path)
	require.NoError(t, err)

	err = WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte{1}, 3<<20)) // more than the buffer: reaches the disk
		return assert.AnError
	})
	assert.ErrorIs(t, err, assert.AnError)
	now, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, old, now)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "ckpt.safetensors", entries[0].Name())

	// A bad tensor is refused before any file is created.
	err = SaveSafetensors(filepath.Join(dir, "new.safetensors"), []NamedTensor{{Name: "x", Shape: []int{2}, Data: []float32{1}}}, nil)
	assert.Error(t, err)
	_, statErr := os.Stat(filepath.Join(dir, "new.safetensors"))
	assert.True(t, os.IsNotExist(statErr))
	entries, _ = os.ReadDir(dir)
	assert.Len(t, entries, 1)

	// A missing directory is an error, not a panic.
	err = SaveSafetensors(filepath.Join(dir, "no", "such", "dir.safetensors"), sampleTensors(), nil)
	assert.True(t, err != nil && strings.Contains(err.Error(), "dir.safetensors"))
}

// Any input either fails cleanly or reads into tensors whose re-encoding is
// a fixed point: write(read(write(read(x)))) == write(read(x)).
func FuzzLoadSafetensors(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, sampleTensors(), map[string]string{"a": "b"}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(rawFile(`{}`, 0))
	f.Add(rawFile(`{"x":{"dtype":"I64","shape":[],"data_offsets":[0,8]}}`, 8))
	for _, h := range hostileFiles {
		f.Add(h.file)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		ts, meta, err := ReadSafetensors(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if err := WriteSafetensors(&once, ts, meta); err != nil {
			t.Fatalf("re-encode a file that read fine: %v", err)
		}
		ts2, meta2, err := ReadSafetensors(bytes.NewReader(once.Bytes()), int64(once.Len()))
		if err != nil {
			t.Fatalf("read back our own encoding: %v", err)
		}
		if err := WriteSafetensors(&twice, ts2, meta2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("encoding is not a fixed point")
		}
	})
}
