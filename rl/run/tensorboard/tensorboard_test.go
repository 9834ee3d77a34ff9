package tensorboard

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// eventDescriptor is TensorBoard's Event, Summary and Summary.Value, built
// here from the .proto field list (package doc), so that the test decodes
// with the protobuf library's dynamic messages and shares no code with the
// writer's hand encoding.
func eventDescriptor(t *testing.T) protoreflect.MessageDescriptor {
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	field := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, label *descriptorpb.FieldDescriptorProto_Label, msg string, oneof *int32) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(), Label: label, OneofIndex: oneof}
		if msg != "" {
			f.TypeName = proto.String(msg)
		}
		return f
	}
	zero := proto.Int32(0)
	fd := &descriptorpb.FileDescriptorProto{
		Name: proto.String("tb.proto"), Package: proto.String("tensorboard"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Event"),
				Field: []*descriptorpb.FieldDescriptorProto{
					field("wall_time", 1, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, opt, "", nil),
					field("step", 2, descriptorpb.FieldDescriptorProto_TYPE_INT64, opt, "", nil),
					field("file_version", 3, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, "", zero),
					field("summary", 5, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, opt, ".tensorboard.Summary", zero),
				},
				OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("what")}}},
			{Name: proto.String("Summary"),
				Field: []*descriptorpb.FieldDescriptorProto{
					field("value", 1, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, rep, ".tensorboard.Summary.Value", nil),
				},
				NestedType: []*descriptorpb.DescriptorProto{{Name: proto.String("Value"),
					Field: []*descriptorpb.FieldDescriptorProto{
						field("tag", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, "", nil),
						field("simple_value", 2, descriptorpb.FieldDescriptorProto_TYPE_FLOAT, opt, "", zero),
					},
					OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("value")}}}}},
		},
	}
	file, err := protodesc.NewFile(fd, nil)
	require.NoError(t, err)
	return file.Messages().ByName("Event")
}

// readRecords is a TFRecord reader written from the format's definition:
// every length and payload CRC is checked.
func readRecords(t *testing.T, path string) [][]byte {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	table := crc32.MakeTable(crc32.Castagnoli)
	mask := func(b []byte) uint32 {
		c := crc32.Checksum(b, table)
		return (c>>15 | c<<17) + 0xa282ead8
	}
	var out [][]byte
	for len(data) > 0 {
		require.GreaterOrEqual(t, len(data), 12)
		n := binary.LittleEndian.Uint64(data[:8])
		require.Equal(t, mask(data[:8]), binary.LittleEndian.Uint32(data[8:12]), "length CRC")
		require.GreaterOrEqual(t, uint64(len(data)), 16+n)
		payload := data[12 : 12+n]
		require.Equal(t, mask(payload), binary.LittleEndian.Uint32(data[12+n:16+n]), "data CRC")
		out = append(out, payload)
		data = data[16+n:]
	}
	return out
}

func TestCastagnoliCheckValue(t *testing.T) {
	// The CRC-32C check value of "123456789" (RFC 3720).
	assert.Equal(t, uint32(0xE3069283), crc32.Checksum([]byte("123456789"), castagnoli))
}

func TestEventsReadBackIndependently(t *testing.T) {
	dir := t.TempDir()
	clock := time.Unix(1700000000, 250_000_000)
	w, err := create(dir, func() time.Time { clock = clock.Add(time.Second); return clock })
	require.NoError(t, err)
	require.NoError(t, w.Scalars(0, []Scalar{{"actor/pg_loss", 0.25}, {"eval/sampled/success", 0.5}}))
	require.NoError(t, w.Scalars(7, []Scalar{{"actor/ppo_kl", math.NaN()}, {"critic/vf_loss", -1.5}, {"arew/flipped", 3}}))
	require.NoError(t, w.Scalars(8, []Scalar{{"only/nan", math.NaN()}}), "an event of NaNs only is skipped")
	require.NoError(t, w.Close())

	files, err := filepath.Glob(filepath.Join(dir, "events.out.tfevents.*"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.True(t, strings.HasPrefix(filepath.Base(files[0]), "events.out.tfevents.1700000001."))

	desc := eventDescriptor(t)
	recs := readRecords(t, files[0])
	require.Len(t, recs, 3)
	type scalar struct {
		tag string
		v   float32
	}
	var steps []int64
	var walls []float64
	var got [][]scalar
	for i, rec := range recs {
		ev := dynamicpb.NewMessage(desc)
		require.NoError(t, proto.Unmarshal(rec, ev))
		f := desc.Fields()
		walls = append(walls, ev.Get(f.ByName("wall_time")).Float())
		if i == 0 {
			assert.Equal(t, "brain.Event:2", ev.Get(f.ByName("file_version")).String())
			continue
		}
		steps = append(steps, ev.Get(f.ByName("step")).Int())
		sum := ev.Get(f.ByName("summary")).Message()
		vals := sum.Get(sum.Descriptor().Fields().ByName("value")).List()
		var row []scalar
		for j := range vals.Len() {
			v := vals.Get(j).Message()
			vf := v.Descriptor().Fields()
			row = append(row, scalar{v.Get(vf.ByName("tag")).String(), float32(v.Get(vf.ByName("simple_value")).Float())})
		}
		got = append(got, row)
	}
	assert.Equal(t, []float64{1700000001.25, 1700000002.25, 1700000003.25}, walls)
	assert.Equal(t, []int64{0, 7}, steps)
	assert.Equal(t, [][]scalar{
		{{"actor/pg_loss", 0.25}, {"eval/sampled/success", 0.5}},
		{{"critic/vf_loss", -1.5}, {"arew/flipped", 3}},
	}, got)
}

func TestCreateRefusesAFileThatExists(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.Unix(5, 0) }
	w, err := create(dir, now)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = create(dir, now)
	assert.Error(t, err, "never overwrite another run's events")
	_, err = Create(filepath.Join(dir, string([]byte{0})))
	assert.Error(t, err)
	var _ io.Closer = w
}
