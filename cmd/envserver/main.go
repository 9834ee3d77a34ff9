// Command envserver serves arew's task simulators and the ACT text
// environments (alfworld, webshop, sciworld) over HTTP and JSON, for
// RL stacks in Python that train language-model agents (docs/envserver.md).
// The protocol and its bounds are package tasks/serve's.
//
//	go run ./cmd/envserver                          # http://127.0.0.1:8080
//	go run ./cmd/envserver -addr 0.0.0.0:9000 -max-episodes 16384 -idle 30m
//	go run ./cmd/envserver -addr 127.0.0.1:0 -addr-file /tmp/envserver.addr
//
// It stops gracefully on SIGTERM or SIGINT: no new connections, requests
// in flight finish (up to -grace, then their connections are closed), then
// it exits; a second SIGTERM or SIGINT exits at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	_ "arew/tasks/all"
	"arew/tasks/serve"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	go onSignals(sigs, cancel, func() { os.Exit(2) }, os.Stderr)
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the usage is printed; asking for it is no failure
		}
		fmt.Fprintln(os.Stderr, "envserver:", err)
		os.Exit(1)
	}
}

// onSignals cancels the server on the first signal (a graceful shutdown)
// and calls exit on the second.
func onSignals(sigs <-chan os.Signal, cancel func(), exit func(), logOut io.Writer) {
	sig := <-sigs
	fmt.Fprintf(logOut, "envserver: %v: shutting down (again to exit at once)\n", sig)
	cancel()
	sig = <-sigs
	fmt.Fprintf(logOut, "envserver: %v again: exiting now\n", sig)
	exit()
}

// run serves until ctx is cancelled, then shuts down gracefully.
func run(ctx context.Context, args []string, logOut io.Writer) error {
	def := serve.DefaultConfig()
	fs := flag.NewFlagSet("envserver", flag.ContinueOnError)
	fs.SetOutput(logOut)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0: any free port)")
	addrFile := fs.String("addr-file", "", "write the bound address (host:port) to this file once listening")
	maxEpisodes := fs.Int("max-episodes", def.MaxEpisodes, "most live episodes")
	perClient := fs.Int("max-per-client", def.MaxEpisodesPerClient, "most live episodes started from one remote IP")
	taskBytes := fs.Int64("max-task-bytes", def.MaxTaskBytes, "most bytes of configured tasks held (cached or used by live episodes)")
	builds := fs.Int("max-builds", def.MaxBuilds, "most task builds (new configurations) at once")
	readTimeout := fs.Duration("read-timeout", 10*time.Second, "most time to read a request's headers and body")
	maxConns := fs.Int("max-conns-per-client", 1024, "most open connections from one remote IP (more are closed at once)")
	idle := fs.Duration("idle", def.IdleTTL, "an episode idle this long is dropped")
	maxBody := fs.Int64("max-body", def.MaxBodyBytes, "most bytes in a request body")
	maxAction := fs.Int("max-action", def.MaxActionBytes, "most bytes in the text of one move")
	grace := fs.Duration("grace", 10*time.Second, "how long shutdown waits for requests in flight")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := def
	cfg.MaxEpisodes, cfg.IdleTTL, cfg.MaxBodyBytes, cfg.MaxActionBytes = *maxEpisodes, *idle, *maxBody, *maxAction
	cfg.MaxEpisodesPerClient, cfg.MaxTaskBytes, cfg.MaxBuilds = *perClient, *taskBytes, *builds
	if *readTimeout <= 0 {
		return fmt.Errorf("-read-timeout must be positive, got %v", *readTimeout)
	}
	if *maxConns < 1 {
		return fmt.Errorf("-max-conns-per-client must be positive, got %d", *maxConns)
	}
	s, err := serve.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	logger := log.New(logOut, "envserver: ", log.LstdFlags)
	bound := ln.Addr().String()
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(bound+"\n"), 0o644); err != nil {
			ln.Close()
			return fmt.Errorf("write -addr-file: %w", err)
		}
	}
	srv := httpServer(s.Handler(), *readTimeout, logger)
	go sweep(ctx, s, cfg.IdleTTL)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(limitConns(ln, *maxConns)) }()
	logger.Printf("listening on http://%s (max %d episodes, %d per client, idle %v)", bound, cfg.MaxEpisodes, cfg.MaxEpisodesPerClient, cfg.IdleTTL)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Printf("shutting down (%d live episodes)", s.Live())
	shutCtx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		srv.Close() // past the grace: drop the connections still open
		<-served
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// httpServer bounds what one connection can hold: the headers and the body
// of a request must arrive within readTimeout (a slow body is cut off),
// a reply must be written within 30 s, an idle keep-alive connection
// lasts 60 s, and headers are at most 16 KiB.
func httpServer(h http.Handler, readTimeout time.Duration, logger *log.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: readTimeout, ReadTimeout: readTimeout,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10, ErrorLog: logger}
}

// connLimiter closes, as soon as it accepts it, a connection from a remote
// IP that already has max open, so that one client cannot hold every file
// descriptor with idle or slow connections.
type connLimiter struct {
	net.Listener
	max  int
	mu   sync.Mutex
	open map[string]int
}

func limitConns(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, open: map[string]int{}}
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := c.RemoteAddr().String()
		if host, _, err := net.SplitHostPort(ip); err == nil {
			ip = host
		}
		l.mu.Lock()
		if l.open[ip] >= l.max {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.open[ip]++
		l.mu.Unlock()
		return &limitedConn{Conn: c, release: sync.OnceFunc(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[ip]--; l.open[ip] <= 0 {
				delete(l.open, ip)
			}
		})}, nil
	}
}

// limitedConn gives its slot back when closed (once, however often).
type limitedConn struct {
	net.Conn
	release func()
}

func (c *limitedConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// sweep drops idle episodes every quarter TTL until ctx ends.
func sweep(ctx context.Context, s *serve.Server, ttl time.Duration) {
	t := time.NewTicker(max(ttl/4, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Sweep()
		}
	}
}
