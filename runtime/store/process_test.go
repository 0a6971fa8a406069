package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests that need a second process re-run this test binary with
// helperEnv set; TestMain then runs the helper instead of the tests.
const (
	helperEnv  = "SCV_STORE_TEST_HELPER"
	helperDir  = "SCV_STORE_TEST_DIR"
	helperID   = "SCV_STORE_TEST_ID"
	helperSeed = "SCV_STORE_TEST_SEED"
	// helperMaxRecords stops an appending helper whose parent never
	// killed it.
	helperMaxRecords = 200_000
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		if err := runHelper(mode); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	removeFixtures()
	os.Exit(code)
}

func runHelper(mode string) error {
	s, err := Open(os.Getenv(helperDir))
	if err != nil {
		return err
	}
	id := os.Getenv(helperID)
	switch mode {
	case "load":
		_, _, err := s.Load(id)
		if errors.Is(err, ErrOwned) {
			fmt.Println("owned")
			return nil
		}
		return err
	case "hold":
		l, _, err := s.Load(id)
		if err != nil {
			return err
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin) // until the parent closes it
		return l.Close()
	case "append":
		return appendUntilKilled(s, id)
	}
	return fmt.Errorf("unknown helper mode %q", mode)
}

// appendUntilKilled appends records of random sizes and, at random
// intervals, syncs and prints the last synced seq: a promise that the
// records up to it survive.
func appendUntilKilled(s *Store, id string) error {
	l, _, err := s.Load(id)
	if err != nil {
		return err
	}
	seed, _ := strconv.ParseUint(os.Getenv(helperSeed), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 1))
	text := strings.Repeat("streamed text, ", 2000)
	nextSync := rng.IntN(8) + 1
	for range helperMaxRecords {
		seq := l.LastSeq() + 1
		n := rng.IntN(len(text))
		if err := l.Append(testRecord(seq, "assistant", map[string]any{"text": text[:n]})); err != nil {
			return err
		}
		if nextSync--; nextSync > 0 {
			continue
		}
		nextSync = rng.IntN(8) + 1
		if err := l.Sync(); err != nil {
			return err
		}
		if _, err := fmt.Println(seq); err != nil {
			return err // the parent is gone
		}
	}
	return errors.New("never killed")
}

func helperCmd(s *Store, mode, id string, seed uint64) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDir+"="+s.Dir(), helperID+"="+id,
		helperSeed+"="+strconv.FormatUint(seed, 10))
	cmd.Stderr = os.Stderr
	return cmd
}

// killAfterAcks runs an appending helper, kills it with SIGKILL once it
// has acknowledged acks syncs, and returns the last acknowledged seq.
func killAfterAcks(t *testing.T, s *Store, id string, acks int, seed uint64) uint64 {
	t.Helper()
	cmd := helperCmd(s, "append", id, seed)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var last uint64
	sc := bufio.NewScanner(out)
	for n := 0; sc.Scan(); n++ {
		if n == acks {
			cmd.Process.Kill()
		}
		seq, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper said %q", sc.Text())
		}
		// Lines printed before the kill landed are promises too.
		last = seq
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
		t.Fatalf("helper ended with %v, want killed", err)
	}
	return last
}

func TestKillLosesNothingSynced(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "crash", "/p", 0)
	path := logPath(s, "crash")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for round := range 3 {
		acked := killAfterAcks(t, s, "crash", rng.IntN(40)+1, seed+uint64(round))

		// A killed process leaves whole lines: its writes carry whole
		// records.
		got, err := s.Read("crash")
		if err != nil || len(got.Warnings) != 0 {
			t.Fatalf("round %d: read after kill: %v, warnings %v", round, err, got.Warnings)
		}
		checkContiguous(t, got.Records, acked)

		// A machine crash may leave half a line; the next owner repairs it.
		appendToFile(t, path, `{"seq":999999999,"type":"assistant","at":"2026-12-01T10:00:00Z","data":{"text":"cut o`)
		l, got := mustLoad(t, s, "crash")
		if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0].Problem, "torn") {
			t.Fatalf("round %d: warnings %v", round, got.Warnings)
		}
		checkContiguous(t, got.Records, acked)
		next := l.LastSeq() + 1
		if err := l.Append(testRecord(next, "prompt", "after the crash")); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		checkLines(t, path)
		l, got = mustLoad(t, s, "crash")
		if len(got.Warnings) != 0 || got.Records[len(got.Records)-1].Seq != next {
			t.Fatalf("round %d: reload: warnings %v, last %d", round, got.Warnings, got.Records[len(got.Records)-1].Seq)
		}
		l.Close()
	}
}

// checkContiguous asserts records are seq 1, 2, ... up to at least acked.
func checkContiguous(t *testing.T, recs []Record, acked uint64) {
	t.Helper()
	for i, r := range recs {
		if r.Seq != uint64(i+1) {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
	}
	if n := uint64(len(recs)); n < acked {
		t.Fatalf("%d records survived, %d were acknowledged as synced", n, acked)
	}
}

func TestLockAcrossProcesses(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "shared", "/p", 2)

	// Another process cannot load what this one holds.
	l, _ := mustLoad(t, s, "shared")
	out, err := helperCmd(s, "load", "shared", 0).Output()
	if err != nil || string(out) != "owned\n" {
		t.Fatalf("second process: %q, %v", out, err)
	}
	l.Close()

	// This process cannot load, delete or prune what another holds.
	cmd := helperCmd(s, "hold", "shared", 0)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	defer func() {
		if !waited {
			stdin.Close()
			cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	_, _, err = s.Load("shared")
	if !errors.Is(err, ErrOwned) || !strings.Contains(err.Error(), "owned by another scv process") {
		t.Fatalf("load while held elsewhere: %v", err)
	}
	wantErr(t, s.Delete("shared"), ErrOwned)
	if removed, err := s.Prune(0, time.Nanosecond, nil); err != nil || len(removed) != 0 {
		t.Fatalf("prune removed %v, %v", removed, err)
	}
	stdin.Close()
	waited = true
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	l, got := mustLoad(t, s, "shared")
	defer l.Close()
	if len(got.Records) != 2 {
		t.Fatalf("%d records after the holder left", len(got.Records))
	}
}
