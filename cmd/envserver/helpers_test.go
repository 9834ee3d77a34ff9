package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startServer runs the command with args on a free loopback port; stop
// cancels it as SIGTERM would, requires a clean return within 15 s, and
// returns what it logged.
func startServer(t *testing.T, args ...string) (base string, stop func() string) {
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	logs := &syncBuffer{}
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-addr-file", addrFile}, args...), logs)
	}()
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(addrFile)
		base = "http://" + strings.TrimSpace(string(b))
		return err == nil && len(b) > 0
	}, 10*time.Second, 10*time.Millisecond)
	return base, func() string {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(15 * time.Second):
			t.Fatal("no shutdown")
		}
		return logs.String()
	}
}

// syncBuffer is a bytes.Buffer that the server and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// send posts body (a string is sent as is) and decodes the JSON reply.
func send(c *http.Client, method, url string, body any, out any) (int, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if !json.Valid(raw) {
		return resp.StatusCode, fmt.Errorf("%s %s: reply is not JSON: %q", method, url, raw)
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(raw, out)
	}
	return resp.StatusCode, nil
}

type episode struct {
	EpisodeID   string `json:"episode_id"`
	Token       string `json:"token"`
	Done        bool   `json:"done"`
	Observation struct {
		Turn *struct {
			Kind string `json:"kind"`
		} `json:"turn"`
	} `json:"observation"`
}
