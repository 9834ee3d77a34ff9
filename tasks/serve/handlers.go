package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"

	"arew/tasks"
)

func (s *Server) health(*http.Request) (int, any, error) {
	return http.StatusOK, map[string]string{"status": "healthy"}, nil
}

// validID is what a client-chosen episode id may look like.
var validID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// reset starts an episode: POST /reset {task, split, index | seed, config}.
func (s *Server) reset(r *http.Request) (int, any, error) {
	var req ResetRequest
	if status, err := s.decode(r, &req); err != nil {
		return status, nil, err
	}
	if req.Task == "" {
		return http.StatusBadRequest, nil, fmt.Errorf(`missing "task" (GET /tasks lists them)`)
	}
	split := tasks.Train
	if req.Split != "" {
		if err := split.UnmarshalText([]byte(req.Split)); err != nil {
			return http.StatusBadRequest, nil, err
		}
	}
	var index int64
	switch {
	case req.Index != nil && req.Seed != nil:
		return http.StatusBadRequest, nil, fmt.Errorf(`give "index" or "seed", not both (seed is the index under OpenEnv's name)`)
	case req.Index != nil:
		index = *req.Index
	case req.Seed != nil:
		index = *req.Seed
	}
	if index < 0 || index >= tasks.MaxInstances {
		return http.StatusBadRequest, nil, fmt.Errorf("index %d outside [0, %d)", index, int64(tasks.MaxInstances))
	}
	if req.EpisodeID != "" && !validID.MatchString(req.EpisodeID) {
		return http.StatusBadRequest, nil, fmt.Errorf("episode_id must be 1 to 64 of A-Z a-z 0-9 _ . -")
	}
	ct, err := s.store.task(req.Task, req.Config)
	if err != nil {
		return http.StatusBadRequest, nil, err
	}
	ep, err := ct.task.NewEpisode(split, int(index))
	if err != nil {
		return http.StatusBadRequest, nil, err
	}
	te := tasks.NewTextEpisode(ct.face, ep)
	l := &live{task: req.Task, split: split, index: index, ep: te}
	id, err := s.store.add(req.EpisodeID, l)
	switch {
	case errors.Is(err, errTaken):
		return http.StatusConflict, nil, fmt.Errorf("episode_id %q is already in use", req.EpisodeID)
	case errors.Is(err, errFull):
		return http.StatusServiceUnavailable, nil, fmt.Errorf("%d live episodes, the limit: close finished ones (POST /close) or wait %v for idle ones to expire", s.cfg.MaxEpisodes, s.cfg.IdleTTL)
	case err != nil:
		return http.StatusInternalServerError, nil, err
	}
	return http.StatusOK, Result{
		EpisodeID:   id,
		Observation: Observation{Text: te.Observation(), System: ct.face.System(), Turn: turnOf(te)},
		Info:        ResetInfo{Task: req.Task, Split: split.String(), Index: index, MaxTokens: ct.task.MaxTokens()},
	}, nil
}

// step plays one move: POST /step {episode_id, action}.
func (s *Server) step(r *http.Request) (int, any, error) {
	var req StepRequest
	if status, err := s.decode(r, &req); err != nil {
		return status, nil, err
	}
	text, err := actionText(req.Action)
	if err != nil {
		return http.StatusBadRequest, nil, err
	}
	if len(text) > s.cfg.MaxActionBytes {
		return http.StatusBadRequest, nil, fmt.Errorf("action of %d bytes, over the limit of %d", len(text), s.cfg.MaxActionBytes)
	}
	l, status, err := s.lookup(req.EpisodeID)
	if err != nil {
		return status, nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ep.Done() {
		return http.StatusConflict, nil, fmt.Errorf("episode %s is over (POST /reset starts another)", l.id)
	}
	ts, err := l.ep.StepText(text)
	if err != nil {
		return http.StatusInternalServerError, nil, err
	}
	st := ts.Step
	info := StepInfo{Turn: st.Turn, Kind: st.Kind.String(), Final: st.Final, Critique: st.Z, Malformed: st.Malformed,
		ParseError: ts.Parsed.Reason, Repeat: st.Repeat, TruthMass: number(st.TruthMass), Move: st.Text,
		Tokens: append([]int32{}, ts.Parsed.Tokens...)}
	res := Result{EpisodeID: l.id, Observation: Observation{Text: ts.Observation, Turn: turnOf(l.ep)}, Done: l.ep.Done()}
	if res.Done {
		m := l.ep.Measures()
		info.Measures = measureOf(m)
		res.Reward = m.Reward
	}
	res.Info = info
	return http.StatusOK, res, nil
}

// state reports an episode: GET /state?episode_id=….
func (s *Server) state(r *http.Request) (int, any, error) {
	l, status, err := s.lookup(r.URL.Query().Get("episode_id"))
	if err != nil {
		return status, nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	steps := l.ep.Steps()
	st := State{EpisodeID: l.id, StepCount: len(steps), Task: l.task, Split: l.split.String(), Index: l.index,
		Done: l.ep.Done(), Turn: turnOf(l.ep), Steps: make([]StepRecord, len(steps))}
	for i, s := range steps {
		st.Steps[i] = recordOf(s)
	}
	if st.Done {
		st.Measures = measureOf(l.ep.Measures())
	}
	return http.StatusOK, st, nil
}

// close forgets an episode: POST /close {episode_id}.
func (s *Server) close(r *http.Request) (int, any, error) {
	var req CloseRequest
	if status, err := s.decode(r, &req); err != nil {
		return status, nil, err
	}
	if req.EpisodeID == "" {
		return http.StatusBadRequest, nil, fmt.Errorf(`missing "episode_id"`)
	}
	if !s.store.remove(req.EpisodeID) {
		return http.StatusNotFound, nil, fmt.Errorf("unknown episode %q", req.EpisodeID)
	}
	return http.StatusOK, map[string]any{"episode_id": req.EpisodeID, "closed": true}, nil
}

func (s *Server) lookup(id string) (*live, int, error) {
	if id == "" {
		return nil, http.StatusBadRequest, fmt.Errorf(`missing "episode_id"`)
	}
	l, err := s.store.get(id)
	if err != nil {
		return nil, http.StatusNotFound, fmt.Errorf("unknown episode %q (never started, closed, or idle for over %v)", id, s.cfg.IdleTTL)
	}
	return l, 0, nil
}

// tasks lists the registered settings: GET /tasks.
func (s *Server) tasks(*http.Request) (int, any, error) {
	var out []TaskInfo
	for _, name := range tasks.Names() {
		ct, err := s.store.task(name, nil)
		if err != nil {
			return http.StatusInternalServerError, nil, err
		}
		out = append(out, TaskInfo{Name: name, Config: configOf(ct.task), MaxTokens: ct.task.MaxTokens(), System: ct.face.System()})
	}
	return http.StatusOK, map[string]any{"tasks": out, "answer_rules": tasks.AnswerRules}, nil
}

// configOf is the task's configuration as JSON, read through its Config
// method (every task has one; new fields appear without code here), or
// null.
func configOf(t tasks.Task) json.RawMessage {
	m := reflect.ValueOf(t).MethodByName("Config")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(m.Call(nil)[0].Interface())
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
