package supervise

import (
	"context"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
)

// Run runs this program's executable with args in a supervised child
// process and returns how it ended. Interrupts (SIGINT, SIGTERM, SIGHUP)
// are passed on to the child, which dies with the supervisor. ok is false
// when no child could be started (os.Executable fails, or exec does), and
// the caller then runs the command itself.
func Run(args []string) (res Result, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return Result{}, false
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		return Result{}, false
	}
	defer crashR.Close()
	noteR, noteW, err := os.Pipe()
	if err != nil {
		crashW.Close()
		return Result{}, false
	}
	defer noteR.Close()

	c := exec.Command(exe, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, crashW
	c.ExtraFiles = []*os.File{os.Stderr, noteW}
	c.Env = append(os.Environ(), envChild+"=1")
	// The child dies with the supervisor (kill -9 of the supervisor stops
	// the write, as it would without one). The signal is tied to the
	// thread that starts the child: keep this goroutine on it.
	runtime.LockOSThread()
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	err = c.Start()
	crashW.Close()
	noteW.Close()
	if err != nil {
		return Result{}, false
	}
	ctx, stopForwarding := context.WithCancel(context.Background())
	go func() { // Ctrl-C, kill: the child cancels its write
		for {
			select {
			case s := <-sigs:
				_ = c.Process.Signal(s)
			case <-ctx.Done():
				return
			}
		}
	}()
	crash := make(chan []byte, 1)
	go func() { crash <- readBounded(crashR, maxOutput) }()
	committed := make(chan bool, 1)
	go func() {
		b, _ := io.ReadAll(noteR)
		committed <- strings.Contains(string(b), commitMark)
	}()
	_ = c.Wait()
	stopForwarding()
	res.Output, res.Committed = <-crash, <-committed
	ws, _ := c.ProcessState.Sys().(syscall.WaitStatus)
	res.Exited, res.Code = ws.Exited(), ws.ExitStatus()
	if ws.Signaled() {
		res.Signal = ws.Signal()
	}
	return res, true
}

// Reraise, for a child killed by a signal, resets that signal's handling
// and sends it to this process, so that the shell sees what happened, and
// returns 128 + the signal's number (the exit code if it is caught).
func (r *Result) Reraise() int {
	sig, _ := r.Signal.(syscall.Signal)
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	return 128 + int(sig)
}
