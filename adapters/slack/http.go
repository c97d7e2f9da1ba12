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
// before anything else (stale timestamps are refused); the message is
// stored before the answer, and what needs the network runs after it.
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
		var after func()
		if ev.Type == slackevents.CallbackEvent {
			if after, err = a.takeEvent(ctx, ev); err != nil {
				a.unstored(w, err)
				return
			}
		}
		w.WriteHeader(http.StatusOK)
		a.asyncIf(after)
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
			UserName: form.Get("user_name"), Command: form.Get("command"), Text: form.Get("text"), TriggerID: form.Get("trigger_id"),
			ResponseURL: form.Get("response_url")}
		after, ack, err := a.takeSlash(ctx, cmd)
		if err != nil {
			a.unstored(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ack)
		a.asyncIf(after)
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
		after, ack, err := a.takeInteraction(ctx, cb)
		if err != nil {
			a.unstored(w, err)
			return
		}
		if ack != nil {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(ack)
		} else {
			w.WriteHeader(http.StatusOK)
		}
		a.asyncIf(after)
	})
	return mux
}

// unstored answers a request whose event could not be stored with an
// error, so that Slack sends it again.
func (a *Adapter) unstored(w http.ResponseWriter, err error) {
	a.log.Error("event not stored: Slack will send it again", slog.Any("error", err))
	http.Error(w, "try again", http.StatusServiceUnavailable)
}

func (a *Adapter) asyncIf(fn func()) {
	if fn != nil {
		a.async(fn)
	}
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
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	a.connected.Store(true)
	defer a.connected.Store(false)
	a.work.Add(1)
	go func() { defer a.work.Done(); a.homeLoop(ctx) }()
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
