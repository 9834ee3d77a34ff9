//go:build gpu

package cuda

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// Buffer is device memory of a fixed size in bytes. A zero-size Buffer owns
// no memory (the driver refuses empty allocations); kernels never read it.
// cuMemAlloc aligns every allocation to at least 256 bytes, which the
// float4 paths rely on.
type Buffer struct {
	d     *Device
	ptr   cu.DevicePtr
	bytes int64
}

// Bytes is the buffer's size.
func (b *Buffer) Bytes() int64 { return b.bytes }

// Alloc returns a buffer of the given size (contents undefined).
func (d *Device) Alloc(bytes int64) (*Buffer, error) {
	if bytes < 0 {
		return nil, fmt.Errorf("cuda: alloc %d bytes", bytes)
	}
	b := &Buffer{d: d, bytes: bytes}
	if bytes == 0 {
		return b, nil
	}
	err := d.do(func() error {
		p, err := cu.MemAlloc(bytes)
		if err != nil {
			return fmt.Errorf("cuda: alloc %d bytes: %w", bytes, err)
		}
		b.ptr = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Free releases the memory; the buffer is empty afterwards. Free of nil or
// of an empty buffer does nothing.
func (b *Buffer) Free() error {
	if b == nil || b.ptr == 0 {
		return nil
	}
	return b.d.do(func() error {
		if err := cu.MemFree(b.ptr); err != nil {
			return fmt.Errorf("cuda: free: %w", err)
		}
		b.ptr, b.bytes = 0, 0
		return nil
	})
}

// Elem is an element type the kernels read.
type Elem interface {
	~float32 | ~int32 | ~uint8 | ~int8
}

// Upload copies src into a new buffer of exactly its size.
func Upload[T Elem](d *Device, src []T) (*Buffer, error) {
	b, err := d.Alloc(int64(len(src)) * elemSize[T]())
	if err != nil {
		return nil, err
	}
	if err := CopyTo(b, src); err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

// CopyTo copies src to the start of b.
func CopyTo[T Elem](b *Buffer, src []T) error {
	n := int64(len(src)) * elemSize[T]()
	if n > b.bytes {
		return fmt.Errorf("cuda: copy %d bytes into a buffer of %d", n, b.bytes)
	}
	if n == 0 {
		return nil
	}
	return b.d.do(func() error {
		if err := cu.MemcpyHtoD(b.ptr, unsafe.Pointer(unsafe.SliceData(src)), n); err != nil {
			return fmt.Errorf("cuda: copy %d bytes to the device: %w", n, err)
		}
		return nil
	})
}

// CopyFrom copies the start of b into dst (after every launched kernel).
func CopyFrom[T Elem](dst []T, b *Buffer) error {
	n := int64(len(dst)) * elemSize[T]()
	if n > b.bytes {
		return fmt.Errorf("cuda: copy %d bytes out of a buffer of %d", n, b.bytes)
	}
	if n == 0 {
		return nil
	}
	return b.d.do(func() error {
		if err := cu.MemcpyDtoH(unsafe.Pointer(unsafe.SliceData(dst)), b.ptr, n); err != nil {
			return fmt.Errorf("cuda: copy %d bytes from the device: %w", n, err)
		}
		return nil
	})
}

func elemSize[T Elem]() int64 {
	var x T
	return int64(unsafe.Sizeof(x))
}

// need reports a buffer smaller than n elements of size bytes each; a nil
// buffer is an error unless optional.
func need(what string, b *Buffer, n int, size int64, optional bool) error {
	if b == nil {
		if optional {
			return nil
		}
		return fmt.Errorf("%s is nil", what)
	}
	if int64(n)*size > b.bytes {
		return fmt.Errorf("%s holds %d bytes, want %d", what, b.bytes, int64(n)*size)
	}
	return nil
}

// freeAll frees the buffers, ignoring nils.
func freeAll(bs ...*Buffer) {
	for _, b := range bs {
		b.Free()
	}
}
