package emulators

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// startDyingWithParent starts cmd so that the kernel kills it when this process exits,
// however it exits, so a crashed test run leaves no emulator behind.
//
// Pdeathsig fires when the *thread* that forked the child exits, not the process
// (golang/go#27505), and the Go runtime ends a thread whose locked goroutine exits. So
// every emulator is started from one goroutine locked to a thread that is never released:
// the signal then comes only with the process. Started from whichever thread ran the
// caller, an emulator could be SIGKILLed mid-run without a word, which is how a browser
// run's dynalite once vanished (the cause is inferred, not caught in the act).
func startDyingWithParent(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	done := make(chan error, 1)
	spawner() <- spawn{cmd, done}
	return <-done
}

type spawn struct {
	cmd  *exec.Cmd
	done chan<- error
}

var spawner = sync.OnceValue(func() chan<- spawn {
	ch := make(chan spawn)
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the process
		for s := range ch {
			s.done <- s.cmd.Start()
		}
	}()
	return ch
})

// listensOn reports whether process pid holds the socket listening on port. Where /proc
// cannot tell (no such file, no entry, another user's descriptors) it says yes, so the
// check never refuses an emulator it knows nothing against; a process that has exited
// holds nothing.
func listensOn(pid, port int) bool {
	inodes := listeningInodes(port)
	if len(inodes) == 0 {
		return true
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) // a process gone listens nowhere
	}
	for _, fd := range fds {
		link, _ := os.Readlink(dir + "/" + fd.Name())
		if inode, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
			return true
		}
	}
	return false
}

// listeningInodes are the inodes of the TCP sockets listening on port (/proc/net/tcp and
// tcp6: "sl local_address rem_address st ... inode", the address in hex, st 0A LISTEN).
func listeningInodes(port int) map[string]bool {
	inodes := map[string]bool{}
	suffix := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && strings.HasSuffix(f[1], suffix) {
				inodes[f[9]] = true
			}
		}
	}
	return inodes
}

// userHZ is the unit of /proc/<pid>/stat's times. The kernel reports them in USER_HZ,
// 100 on every architecture Linux runs this on (sysconf(_SC_CLK_TCK); an assumption, not
// asked of the C library, which a pure Go build cannot reach).
const userHZ = 100

// processCPU is the CPU time (user and system) process pid has used so far, from
// /proc/<pid>/stat (proc(5): utime and stime are its 14th and 15th fields; the 2nd, the
// command's name in parentheses, may itself hold spaces and parentheses).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	d, err := statCPU(string(b))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return d, nil
}

// statCPU is utime plus stime of a /proc/<pid>/stat line.
func statCPU(s string) (time.Duration, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("no command name")
	}
	f := strings.Fields(s[i+1:]) // from the 3rd field on: utime is f[11], stime f[12]
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the name, want at least 13", len(f))
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
