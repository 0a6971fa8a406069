package checkpoint

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is when the file's inode last changed: no program can set
// it back, unlike the modification time.
func changeTime(info fs.FileInfo) time.Time {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return info.ModTime()
}
