package serve

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"arew/tasks"
)

// live is one episode held by the server. Its mutex orders the steps of
// one episode; different episodes step concurrently.
type live struct {
	mu       sync.Mutex
	id       string
	task     string
	split    tasks.Split
	index    int64
	ep       *tasks.TextEpisode
	lastUsed time.Time // guarded by the store's mutex
}

// store holds the live episodes, at most max of them, and the configured
// tasks they were made from.
type store struct {
	mu       sync.Mutex
	max      int
	ttl      time.Duration
	now      func() time.Time
	episodes map[string]*live

	tasksMu   sync.Mutex
	maxTasks  int
	taskList  []string // keys in insertion order, for eviction
	taskByKey map[string]*cachedTask
}

type cachedTask struct {
	task tasks.Task
	face *tasks.TextFace
}

var (
	errFull     = errors.New("too many live episodes")
	errTaken    = errors.New("episode id already in use")
	errNotFound = errors.New("unknown episode")
)

func newStore(maxEpisodes, maxTasks int, ttl time.Duration, now func() time.Time) *store {
	return &store{max: maxEpisodes, ttl: ttl, now: now, episodes: map[string]*live{},
		maxTasks: maxTasks, taskByKey: map[string]*cachedTask{}}
}

// task makes (or reuses) the named task with config. Tasks are immutable
// once made, so episodes of one configuration share one.
func (s *store) task(name string, config json.RawMessage) (*cachedTask, error) {
	key, err := taskKey(name, config)
	if err != nil {
		return nil, err
	}
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	if c, ok := s.taskByKey[key]; ok {
		return c, nil
	}
	t, err := tasks.New(name, config)
	if err != nil {
		return nil, err
	}
	face, err := tasks.TextFaceOf(t)
	if err != nil {
		return nil, err
	}
	if len(s.taskList) >= s.maxTasks { // forget the oldest; its live episodes keep it
		delete(s.taskByKey, s.taskList[0])
		s.taskList = s.taskList[1:]
	}
	c := &cachedTask{task: t, face: face}
	s.taskByKey[key] = c
	s.taskList = append(s.taskList, key)
	return c, nil
}

// taskKey is name plus the compacted config; no config, null and {} are
// the same key.
func taskKey(name string, config json.RawMessage) (string, error) {
	if len(config) == 0 {
		return name, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, config); err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	b := buf.Bytes()
	if s := string(b); s == "null" || s == "{}" {
		return name, nil
	}
	if b[0] != '{' {
		return "", fmt.Errorf("config must be a JSON object")
	}
	return name + "\x00" + string(b), nil
}

// add registers an episode under id ("" draws one). When the store is
// full it first drops expired episodes, then the least recently used
// finished one; if none is finished it refuses.
func (s *store) add(id string, l *live) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		id = newID()
	} else if _, taken := s.episodes[id]; taken {
		return "", errTaken
	}
	if len(s.episodes) >= s.max {
		s.sweepLocked()
	}
	if len(s.episodes) >= s.max && !s.evictFinishedLocked() {
		return "", errFull
	}
	l.id, l.lastUsed = id, s.now()
	s.episodes[id] = l
	return id, nil
}

// get finds a live episode and marks it used; an expired one is dropped.
func (s *store) get(id string) (*live, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.episodes[id]
	if !ok {
		return nil, errNotFound
	}
	now := s.now()
	if now.Sub(l.lastUsed) > s.ttl {
		delete(s.episodes, id)
		return nil, errNotFound
	}
	l.lastUsed = now
	return l, nil
}

// remove drops an episode; it reports whether it was there.
func (s *store) remove(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.episodes[id]
	delete(s.episodes, id)
	return ok
}

// Len is the number of episodes held (expired ones included until swept).
func (s *store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.episodes)
}

// Sweep drops every episode idle for longer than the TTL.
func (s *store) Sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
}

func (s *store) sweepLocked() {
	now := s.now()
	for id, l := range s.episodes {
		if now.Sub(l.lastUsed) > s.ttl {
			delete(s.episodes, id)
		}
	}
}

// evictFinishedLocked drops the least recently used finished episode. An
// episode being stepped holds its own lock; TryLock skips it.
func (s *store) evictFinishedLocked() bool {
	var oldest *live
	for _, l := range s.episodes {
		if !l.mu.TryLock() {
			continue
		}
		done := l.ep.Done()
		l.mu.Unlock()
		if done && (oldest == nil || l.lastUsed.Before(oldest.lastUsed)) {
			oldest = l
		}
	}
	if oldest == nil {
		return false
	}
	delete(s.episodes, oldest.id)
	return true
}

// newID is 128 random bits (crypto/rand): unguessable, so one client cannot
// step another's episode by accident.
func newID() string { return "ep-" + rand.Text() }
