package bridge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestResolveMode(t *testing.T) {
	cases := []struct {
		flag     string
		noDaemon bool
		env      string
		want     Mode
		wantErr  bool
	}{
		{"", false, "", ModeAuto, false},
		{"auto", false, "", ModeAuto, false},
		{"required", false, "", ModeRequired, false},
		{"never", false, "", ModeNever, false},
		{"required", true, "", ModeNever, false},
		{"required", false, "1", ModeNever, false},
		{"auto", false, "0", ModeAuto, false},
		{"sometimes", false, "", "", true},
	}
	for _, tc := range cases {
		t.Setenv(NoDaemonEnv, tc.env)
		got, err := ResolveMode(tc.flag, tc.noDaemon)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ResolveMode(%q, %v) with %s=%q = %q, %v; want %q", tc.flag, tc.noDaemon, NoDaemonEnv, tc.env, got, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("error %q does not name the bad value", err)
		}
	}
}

func TestDialModes(t *testing.T) {
	noStart := func() error { t.Fatal("startDaemon called"); return nil }
	missing := tempSocket(t)

	if c, err := Dial(ModeNever, missing, noStart); c != nil || err != nil {
		t.Fatalf("never = %v, %v", c, err)
	}
	if c, err := Dial(ModeAuto, missing, noStart); c != nil || err != nil {
		t.Fatalf("auto without a daemon = %v, %v; want in-process", c, err)
	}
	d := startDaemon(t, nil)
	for _, m := range []Mode{ModeAuto, ModeRequired} {
		c, err := Dial(m, d.path, noStart)
		if err != nil || c == nil {
			t.Fatalf("%s with a daemon = %v, %v", m, c, err)
		}
		c.Close()
	}
}

func TestDialRequiredStartsDaemon(t *testing.T) {
	path := tempSocket(t)
	var d *runningDaemon
	start := func() error {
		// What `scv daemon` does in its own process.
		l, err := Listen(path)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithCancel(context.Background())
		d = &runningDaemon{path: path, stub: newStubServer(), cancel: cancel, done: make(chan error, 1)}
		go func() { d.done <- l.Run(ctx, DaemonOptions{Serve: d.stub.Serve}) }()
		return nil
	}
	c, err := Dial(ModeRequired, path, start)
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop(t)
	cl := NewClient(c, nil)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if _, err := cl.Initialize(ctx, "test"); err != nil {
		t.Fatal(err)
	}
}

func TestDialRequiredFailures(t *testing.T) {
	path := tempSocket(t)
	boom := errors.New("boom")
	if _, err := dial(ModeRequired, path, func() error { return boom }, time.Second); !errors.Is(err, boom) {
		t.Fatalf("failed start = %v", err)
	}
	_, err := dial(ModeRequired, path, func() error { return nil }, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), path) {
		t.Fatalf("daemon that never answers = %v", err)
	}
}

func TestStartDetached(t *testing.T) {
	logPath := filepath.Join(shortTempDir(t), "home", LogName)
	os.MkdirAll(filepath.Dir(logPath), 0o700)
	os.WriteFile(logPath, []byte("earlier run\n"), 0o600)
	// The child reports its pid and session id, then what it reads from stdin.
	script := `read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo "pid=$pid sid=$sid"; echo to-stderr >&2; cat; echo end`
	if err := startDetached("/bin/sh", []string{"-c", script}, logPath); err != nil {
		t.Fatal(err)
	}
	var log string
	deadline := time.Now().Add(waitBound)
	for !strings.Contains(log, "end\n") {
		// The child is a separate process that only leaves its log behind.
		if time.Now().After(deadline) {
			t.Fatalf("log after %v: %q", waitBound, log)
		}
		time.Sleep(10 * time.Millisecond)
		b, _ := os.ReadFile(logPath)
		log = string(b)
	}
	if !strings.HasPrefix(log, "earlier run\n") || !strings.Contains(log, "to-stderr\n") {
		t.Fatalf("log = %q: want the earlier content kept and stderr appended", log)
	}
	var pid, sid int
	for _, f := range strings.Fields(log) {
		if v, ok := strings.CutPrefix(f, "pid="); ok {
			pid, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(f, "sid="); ok {
			sid, _ = strconv.Atoi(v)
		}
	}
	if pid == 0 || pid != sid {
		t.Fatalf("child pid %d, session %d: want a session of its own", pid, sid)
	}
}

func TestPollableFileCanBeInterrupted(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd, err := unix.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(int(r.Fd()), false) // as a parent process would hand it over
	f, restore, err := PollableFile(fd, "pipe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan error, 1)
	go func() {
		_, err := f.Read(make([]byte, 1))
		done <- err
	}()
	interruptRead(f)
	select {
	case err := <-done:
		if !isTimeout(err) {
			t.Fatalf("interrupted read = %v, want a timeout", err)
		}
	case <-time.After(waitBound):
		t.Fatal("a blocked read was not interrupted")
	}
	restore()
	flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if flags&unix.O_NONBLOCK != 0 {
		t.Fatal("restore left the descriptor non-blocking")
	}

	reg, err := os.CreateTemp(shortTempDir(t), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	rfd, _ := unix.Dup(int(reg.Fd()))
	plain, restore2, err := PollableFile(rfd, "file")
	if err != nil {
		t.Fatal(err)
	}
	restore2()
	plain.Close()
}
