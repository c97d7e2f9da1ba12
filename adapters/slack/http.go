package slack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// HTTPHandler serves the Events API, the slash command and interactivity
// over HTTP. Every request's signature is verified with the signing secret
// before anything else (stale timestamps are refused); the answer is sent
// at once and the work runs after it.
func (a *Adapter) HTTPHandler(ctx context.Context) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/events", func(w http.ResponseWriter, r *http.Request) {
		body, ok := a.verified(w, r)
		if !ok {
			return
		}
		ev, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
		if err != nil {
			http.Error(w, "bad event", http.StatusBadRequest)
			return
		}
		if ev.Type == slackevents.URLVerification {
			var c slackevents.ChallengeResponse
			json.Unmarshal(body, &c)
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, c.Challenge)
			return
		}
		w.WriteHeader(http.StatusOK)
		if ev.Type == slackevents.CallbackEvent {
			a.async(func() { a.handleEvent(ctx, ev) })
		}
	})
	mux.HandleFunc("POST /slack/commands", func(w http.ResponseWriter, r *http.Request) {
		body, ok := a.verified(w, r)
		if !ok {
			return
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		cmd := slack.SlashCommand{TeamID: form.Get("team_id"), ChannelID: form.Get("channel_id"), UserID: form.Get("user_id"),
			UserName: form.Get("user_name"), Command: form.Get("command"), Text: form.Get("text"), TriggerID: form.Get("trigger_id")}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(slashAck(cmd))
		a.async(func() { a.handleSlash(ctx, cmd) })
	})
	mux.HandleFunc("POST /slack/interactive", func(w http.ResponseWriter, r *http.Request) {
		body, ok := a.verified(w, r)
		if !ok {
			return
		}
		form, err := url.ParseQuery(string(body))
		var cb slack.InteractionCallback
		if err == nil {
			err = json.Unmarshal([]byte(form.Get("payload")), &cb)
		}
		if err != nil {
			http.Error(w, "bad payload", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
		a.async(func() { a.handleInteraction(ctx, cb) })
	})
	return mux
}

// verified reads a request's body and checks its signature; on failure it
// answers 401 and reports false.
func (a *Adapter) verified(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "unreadable", http.StatusBadRequest)
		return nil, false
	}
	sv, err := slack.NewSecretsVerifier(r.Header, a.opt.SigningSecret)
	if err == nil {
		sv.Write(body)
		err = sv.Ensure()
	}
	if err != nil || a.opt.SigningSecret == "" {
		if err == nil {
			err = errors.New("no signing secret configured")
		}
		a.log.Warn("rejected unsigned or forged Slack request", slog.String("path", r.URL.Path), slog.Any("error", err))
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return nil, false
	}
	return body, true
}

// RunHTTP serves HTTPHandler on addr until ctx is done.
func (a *Adapter) RunHTTP(ctx context.Context, addr string) error {
	if a.opt.SigningSecret == "" {
		return errors.New("slack: HTTP mode needs SLACK_SIGNING_SECRET")
	}
	if err := a.whoAmI(ctx); err != nil {
		return err
	}
	// Slack waits 3 s for an answer; nothing of ours needs longer, and a
	// slow or idle client must not hold a connection open.
	srv := &http.Server{Addr: addr, Handler: a.HTTPHandler(ctx), ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	stopped := make(chan struct{})
	shut := make(chan struct{})
	go func() {
		defer close(shut)
		select {
		case <-ctx.Done():
		case <-stopped:
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	defer a.work.Wait()
	err := srv.ListenAndServe()
	close(stopped)
	<-shut
	if !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
