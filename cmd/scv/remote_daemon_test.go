package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
)

// requireSSHDEnv makes a missing sshd fail the tests that need one instead
// of skipping them; scripts/test sets it after installing openssh-server.
const requireSSHDEnv = "SCV_REQUIRE_SSHD"

// A daemon on another machine, reached through `ssh -L` on a forwarded
// socket, serves with its own configuration: the local $SCV_HOME is empty,
// the daemon's holds the endpoint and its key. Every command that talks to
// a daemon must use the daemon's configuration, not demand a local key.
func TestCommandsThroughAnSSHForwardedSocketUseTheDaemonsConfig(t *testing.T) {
	sshd := requireSSHD(t)
	srv := fakeopenai.New(t)
	remoteHome := fakeHome(t, srv)
	remoteSocket := filepath.Join(remoteHome, "server.sock")
	startDaemon(t, remoteHome, remoteSocket)

	localSocket := filepath.Join(shortTempDir(t), "fwd.sock")
	forwardSocket(t, sshd, localSocket, remoteSocket)

	// This machine's config names another endpoint and no key: none of it
	// may apply to the daemon's sessions.
	localHome := t.TempDir()
	writeFile(t, filepath.Join(localHome, "config.toml"), "[provider]\nbase_url = \"http://127.0.0.1:9/v1\"\n")
	work := t.TempDir()
	env := []string{"SCV_HOME=" + localHome, "HOME=" + localHome, "PATH=" + os.Getenv("PATH"), "SCV_SOCKET=" + localSocket}

	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"Hello from ", "the daemon."}})
	stdout, stderr, code := runWith(t, env, work, "", "exec", "say hello")
	if code != 0 || stdout != "Hello from the daemon.\n" {
		t.Fatalf("scv exec through the forwarded socket: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 {
		t.Fatalf("the daemon's endpoint got %d requests, want 1", len(reqs))
	}

	// The session is the daemon's: listed through the same socket, and
	// resumed there with the daemon's configuration again.
	out, stderr, code := runWith(t, env, work, "", "sessions", "--json")
	if code != 0 || !strings.Contains(out, `"cwd": "`+work+`"`) {
		t.Fatalf("scv sessions through the forwarded socket: exit %d\n%s\n%s", code, out, stderr)
	}
	id := between(t, out, `"sessionId": "`, `"`)
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"Again."}})
	stdout, stderr, code = runWith(t, env, work, "", "exec", "--resume", id, "once more")
	if code != 0 || stdout != "Again.\n" {
		t.Fatalf("scv exec --resume through the forwarded socket: exit %d, stdout %q\n%s", code, stdout, stderr)
	}

	// A flag still says otherwise: in-process, this machine's config
	// applies, and its endpoint is not there.
	_, stderr, code = runWith(t, env, work, "", "exec", "--daemon=never", "hello")
	if code != 1 || !strings.Contains(stderr, "127.0.0.1:9") {
		t.Fatalf("scv exec --daemon=never: exit %d\n%s", code, stderr)
	}
}

func requireSSHD(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/sbin/sshd", "/usr/bin/sshd"} {
		if _, err := os.Stat(p); err == nil {
			if _, err := exec.LookPath("ssh"); err != nil {
				break
			}
			return p
		}
	}
	if os.Getenv(requireSSHDEnv) == "1" {
		t.Fatalf("sshd and ssh are required (%s=1): install Debian's openssh-server", requireSSHDEnv)
	}
	t.Skipf("no sshd here; set %s=1 to make this a failure", requireSSHDEnv)
	return ""
}

// forwardSocket runs a private sshd on a loopback port and `ssh -N -L
// local:remote` through it, and returns once local accepts connections.
func forwardSocket(t *testing.T, sshd, local, remote string) {
	t.Helper()
	dir := t.TempDir()
	keygen := func(name string) string {
		path := filepath.Join(dir, name)
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		return path
	}
	hostKey, userKey := keygen("host"), keygen("user")
	pub, err := os.ReadFile(userKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	conf := filepath.Join(dir, "sshd_config")
	writeFile(t, conf, strings.Join([]string{
		"ListenAddress 127.0.0.1:" + port,
		"HostKey " + hostKey,
		"AuthorizedKeysFile " + authorized,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"StrictModes no",
		"PermitRootLogin prohibit-password",
		"AllowStreamLocalForwarding yes",
		"",
	}, "\n"))
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil && os.Getuid() == 0 {
		t.Fatal(err)
	}
	var sshdLog bytes.Buffer
	daemon := exec.Command(sshd, "-D", "-e", "-f", conf)
	daemon.Stdout, daemon.Stderr = &sshdLog, &sshdLog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })
	waitDial(t, "tcp", "127.0.0.1:"+port, &sshdLog)

	var sshLog bytes.Buffer
	client := exec.Command("ssh", "-N", "-i", userKey, "-p", port,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes",
		"-L", local+":"+remote, currentUser(t)+"@127.0.0.1")
	client.Stdout, client.Stderr = &sshLog, &sshLog
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Process.Kill(); client.Wait() })
	waitDial(t, "unix", local, &sshLog)
}

func startDaemon(t *testing.T, home, socket string) {
	t.Helper()
	var log bytes.Buffer
	d := exec.Command(scvBin, "daemon", "--socket", socket)
	d.Env = []string{"SCV_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	d.Stdout, d.Stderr = &log, &log
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill(); d.Wait() })
	waitDial(t, "unix", socket, &log)
}

// waitDial waits until addr accepts a connection; its bound is for a
// process that never comes up, not a timing the test depends on.
func waitDial(t *testing.T, network, addr string, log *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout(network, addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s never accepted: %v\n%s", network, addr, err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func currentUser(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// shortTempDir is a directory whose socket paths stay under the 108 bytes
// a Unix socket address holds.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "scv-ssh-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func between(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("%q not in %s", start, s)
	}
	rest := s[i+len(start):]
	j := strings.Index(rest, end)
	if j < 0 {
		t.Fatalf("%q not after %q in %s", end, start, s)
	}
	return rest[:j]
}
