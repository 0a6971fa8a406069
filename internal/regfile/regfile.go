// Package regfile reads files that must be regular files (configuration,
// instructions, scripts) without ever blocking on a FIFO or a device, and
// with a size cap. The check is made on the opened file, so a path swapped
// between a check and the open cannot slip past it.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error for a FIFO, device, socket or
// directory.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is returned for a file larger than the cap it was read with.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.Max) }

// Open opens path for reading and checks that it is a regular file. Opening
// does not wait for a FIFO's writer (see openFlags), and nothing is read
// from anything but a regular file.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return checked(os.OpenFile(path, os.O_RDONLY|openFlags, 0))
}

// OpenInRoot is Open for a name inside root: it cannot lead outside it.
func OpenInRoot(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	return checked(root.OpenFile(name, os.O_RDONLY|openFlags, 0))
}

func checked(f *os.File, err error) (*os.File, fs.FileInfo, error) {
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%w (%s)", ErrNotRegular, Describe(info.Mode()))
	}
	return f, info, nil
}

// Describe names a file mode as a person reads it in an error or a
// conflict's reason ("a named pipe", "a symlink").
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsRegular():
		return "a file"
	}
	return "mode " + m.String()
}

// ReadAll reads at most max bytes of f. truncated says there was more.
func ReadAll(f *os.File, max int64) (data []byte, truncated bool, err error) {
	data, err = io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > max {
		return data[:max], true, nil
	}
	return data, false, nil
}

// ReadFile reads the regular file at path whole, failing with a
// TooLargeError when it holds more than max bytes.
func ReadFile(path string, max int64) ([]byte, fs.FileInfo, error) {
	f, info, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, truncated, err := ReadAll(f, max)
	if err != nil {
		return nil, nil, err
	}
	if truncated {
		return nil, nil, &TooLargeError{Max: max}
	}
	return data, info, nil
}
