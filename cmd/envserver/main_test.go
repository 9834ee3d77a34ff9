package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeAndShutDown starts the command on a free loopback port, plays a
// move, and cancels it as SIGTERM would: it must return cleanly.
func TestServeAndShutDown(t *testing.T) {
	base, stop := startServer(t)
	c := http.DefaultClient
	code, err := send(c, "GET", base+"/health", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 200, code)
	var res episode
	code, err = send(c, "POST", base+"/reset", `{"task": "telecom-solo"}`, &res)
	require.NoError(t, err)
	require.Equal(t, 200, code)
	require.NotEmpty(t, res.Token)
	code, err = send(c, "POST", base+"/step", map[string]string{"episode_id": res.EpisodeID, "token": res.Token, "action": "done"}, nil)
	require.NoError(t, err)
	assert.Equal(t, 200, code)
	assert.Contains(t, stop(), "shutting down")
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-max-episodes", "0"}, {"-idle", "-1s"}, {"extra"}, {"-nope"},
		{"-max-per-client", "0"}, {"-max-task-bytes", "1000"}, {"-max-builds", "0"}, {"-read-timeout", "0s"},
		{"-max-conns-per-client", "0"}} {
		err := run(context.Background(), args, &bytes.Buffer{})
		assert.Error(t, err, args)
	}
}

// TestSecondSignalExits: the first signal cancels (a graceful shutdown),
// the second exits at once.
func TestSecondSignalExits(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	cancelled, exited := make(chan bool, 1), make(chan bool, 1)
	var logs bytes.Buffer
	done := make(chan struct{})
	go func() {
		onSignals(sigs, func() { cancelled <- true }, func() { exited <- true }, &logs)
		close(done)
	}()
	sigs <- syscall.SIGTERM
	assert.True(t, <-cancelled)
	assert.Empty(t, exited)
	sigs <- os.Interrupt
	assert.True(t, <-exited)
	<-done
	assert.Contains(t, logs.String(), "exiting now")
}

// TestConnectionBounds: a request's headers and body must arrive within
// -read-timeout.
func TestConnectionBounds(t *testing.T) {
	srv := httpServer(http.NotFoundHandler(), 3*time.Second, nil)
	assert.Equal(t, 3*time.Second, srv.ReadHeaderTimeout)
	assert.Equal(t, 3*time.Second, srv.ReadTimeout)
	assert.Positive(t, srv.WriteTimeout)
	assert.Positive(t, srv.IdleTimeout)
	assert.Equal(t, 16<<10, srv.MaxHeaderBytes)
}

// TestConnLimit: a remote IP gets at most max open connections; a closed
// one frees its slot.
func TestConnLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := limitConns(ln, 2)
	defer l.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	var clients []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		clients = append(clients, c)
	}
	a, b := <-accepted, <-accepted
	// The third was closed by the server: a read sees the end.
	buf := make([]byte, 1)
	_, err = clients[2].Read(buf)
	assert.Error(t, err)
	assert.Empty(t, accepted)
	// Closing one (twice: the slot is freed once) lets the next in.
	require.NoError(t, a.Close())
	a.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	d := <-accepted
	require.NoError(t, d.Close())
	require.NoError(t, b.Close())
	l.mu.Lock()
	assert.Empty(t, l.open)
	l.mu.Unlock()
}
