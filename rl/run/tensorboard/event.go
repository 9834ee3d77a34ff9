package tensorboard

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The field numbers of TensorBoard's Event, Summary and Summary.Value
// (package doc).
const (
	eventWallTime    = 1
	eventStep        = 2
	eventFileVersion = 3
	eventSummary     = 5
	summaryValue     = 1
	valueTag         = 1
	valueSimpleValue = 2
)

// fileVersion is the first event's file_version, which TensorBoard checks.
const fileVersion = "brain.Event:2"

// Scalar is one (tag, value) pair of an event.
type Scalar struct {
	Tag   string
	Value float64
}

// versionEvent is the serialised first Event of a file.
func versionEvent(wallTime float64) []byte {
	b := protowire.AppendTag(nil, eventWallTime, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.Float64bits(wallTime))
	b = protowire.AppendTag(b, eventFileVersion, protowire.BytesType)
	return protowire.AppendString(b, fileVersion)
}

// scalarEvent is the serialised Event of the finite scalars at step; ok is
// false when none is finite.
func scalarEvent(wallTime float64, step int64, scalars []Scalar) (b []byte, ok bool) {
	var summary []byte
	for _, s := range scalars {
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			continue
		}
		var v []byte
		v = protowire.AppendTag(v, valueTag, protowire.BytesType)
		v = protowire.AppendString(v, s.Tag)
		v = protowire.AppendTag(v, valueSimpleValue, protowire.Fixed32Type)
		v = protowire.AppendFixed32(v, math.Float32bits(float32(s.Value)))
		summary = protowire.AppendTag(summary, summaryValue, protowire.BytesType)
		summary = protowire.AppendBytes(summary, v)
	}
	if summary == nil {
		return nil, false
	}
	b = protowire.AppendTag(nil, eventWallTime, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.Float64bits(wallTime))
	b = protowire.AppendTag(b, eventStep, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(step))
	b = protowire.AppendTag(b, eventSummary, protowire.BytesType)
	return protowire.AppendBytes(b, summary), true
}
