package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeAndShutDown starts the command on a free loopback port, plays a
// move, and cancels it as SIGTERM would: it must return cleanly.
func TestServeAndShutDown(t *testing.T) {
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-addr-file", addrFile}, &logs) }()
	var addr string
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
		return err == nil && addr != ""
	}, 10*time.Second, 10*time.Millisecond)
	base := "http://" + addr
	resp, err := http.Get(base + "/health")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)

	resp, err = http.Post(base+"/reset", "application/json", strings.NewReader(`{"task": "telecom-solo"}`))
	require.NoError(t, err)
	var res struct {
		EpisodeID string `json:"episode_id"`
		Token     string `json:"token"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&res))
	resp.Body.Close()
	require.NotEmpty(t, res.Token)
	resp, err = http.Post(base+"/step", "application/json", strings.NewReader(`{"episode_id": "`+res.EpisodeID+`", "token": "`+res.Token+`", "action": "done"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("no shutdown")
	}
	assert.Contains(t, logs.String(), "shutting down")
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
