package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// direntBufBytes is the buffer eachName reads directory entries into.
const direntBufBytes = 32 << 10

// eachName calls fn with the name of every entry of the open directory d,
// from its start. The name aliases a buffer that the next call reuses:
// fn copies what it keeps. Unlike Readdirnames, it allocates nothing per
// entry, so listing a store of 10,000 sessions does not leave megabytes
// of names behind in the process.
func eachName(d *os.File, fn func(name []byte)) error {
	fd := int(d.Fd())
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return fmt.Errorf("read the session store %s: %w", d.Name(), err)
	}
	buf := make([]byte, direntBufBytes)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("read the session store %s: %w", d.Name(), err)
		}
		if n <= 0 {
			return nil
		}
		// struct linux_dirent64: ino u64, off u64, reclen u16, type u8,
		// then the NUL-terminated name.
		const nameOff = 19
		for rec := buf[:n]; len(rec) >= nameOff; {
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < nameOff || reclen > len(rec) {
				return fmt.Errorf("read the session store %s: a malformed directory entry", d.Name())
			}
			name := rec[nameOff:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if !(len(name) == 1 && name[0] == '.' || len(name) == 2 && name[0] == '.' && name[1] == '.') {
				fn(name)
			}
			rec = rec[reclen:]
		}
	}
}

// transient views b as a string without copying, for checks that do not
// keep it (b changes at the next directory read).
func transient(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
