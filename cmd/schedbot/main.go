// Command schedbot is the one binary: the daemon, the CLI that calls any
// function, the audit log reviewer and the cron tools.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/schedbot/schedbot/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stdin = os.Stdin
	err := Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, errSilent) {
			fmt.Fprintln(os.Stderr, "schedbot: "+err.Error())
		}
		os.Exit(exitCode(err))
	}
}

// Exit codes: 0 ok, 1 the operation failed, 2 usage.
const (
	exitFailed = 1
	exitUsage  = 2
)

// usageError is a mistake in how schedbot was called.
type usageError = app.UsageError

func usagef(format string, args ...any) error { return app.Usagef(format, args...) }

// stdin is what chat reads; tests replace it.
var stdin io.Reader = strings.NewReader("")

// errSilent ends a command that has already said why it failed.
var errSilent = errors.New("failed")

func exitCode(err error) int {
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, flag.ErrHelp) {
		return exitUsage
	}
	return exitFailed
}

const usage = `schedbot — a conversational scheduling agent

Usage:
  schedbot chat [--profile ID]
  schedbot serve [--delivery-log FILE] [--metrics ADDR] [--http ADDR]
  schedbot call FUNCTION [--orchestrator ID | --profile ID] [--args JSON | --args-file FILE] [--request-id ID] [--json]
  schedbot audit [--orchestrator ID] [--job ID] [--actor WHO] [--since 24h] [--limit N] [--json]
  schedbot audit verify [--orchestrator ID] [--head HASH]
  schedbot audit export --until DATE [--orchestrator ID] [--out FILE] [--prune]
  schedbot doctor [--orchestrator ID] [--repair]
  schedbot queue [--orchestrator ID] [--queue NAME] [--limit N] [--json]
  schedbot parse [--now RFC3339] [--tz IANA] [--profile ID] TEXT
  schedbot next --tz IANA [--after RFC3339] [--count N] [--dtstart LOCAL] EXPR
  schedbot describe [--tz IANA] [--dtstart LOCAL] EXPR   (EXPR: a cron or an RRULE)
  schedbot cron next --tz IANA [--after RFC3339] [--count N] EXPR
  schedbot cron describe [--tz IANA] EXPR
  schedbot functions [--orchestrator ID] [--json]
  schedbot store copy --from-config OLD.yaml --to-config NEW.yaml [--orchestrator ID]
  schedbot slack check   (tokens, granted scopes vs the manifest, Socket Mode, team id)
  schedbot token create --profile ID --sender ID [--name N] [--expires 90d|never] [--feed]
  schedbot token list | token revoke TOKEN_ID
  schedbot version

Every command takes --config FILE (or $SCHEDBOT_CONFIG; else ./schedbot.yaml if
present; else the embedded default) and --data DIR (the embedded default's data
directory, $XDG_DATA_HOME/schedbot or ~/.local/share/schedbot by default).

Exit status: 0 ok, 1 the operation failed, 2 usage.
`

// Run runs one schedbot command with args (without the program name).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "call":
		return runCall(ctx, rest, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "chat":
		return runChat(ctx, rest, stdin, stdout, stderr)
	case "parse":
		return runParse(ctx, rest, stdout, stderr)
	case "queue":
		return runQueue(ctx, rest, stdout, stderr)
	case "audit":
		return runAudit(ctx, rest, stdout, stderr)
	case "doctor":
		return runDoctor(ctx, rest, stdout, stderr)
	case "cron":
		return runCron(ctx, rest, stdout, stderr)
	case "next":
		return runNext(ctx, rest, stdout, stderr)
	case "describe":
		return runDescribe(ctx, rest, stdout, stderr)
	case "functions":
		return runFunctions(ctx, rest, stdout, stderr)
	case "store":
		return runStore(ctx, rest, stdout, stderr)
	case "slack":
		return runSlack(ctx, rest, stdout, stderr)
	case "token":
		return runToken(ctx, rest, stdout, stderr)
	case "version", "--version":
		return runVersion(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usagef("unknown command %q", cmd)
}

// parseFlags parses flags that may stand before, between or after the
// positional arguments (stopping at "--"), and returns the positionals.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, refuseEmpty(fs, "orchestrator", "profile")
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), refuseEmpty(fs, "orchestrator", "profile")
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// refuseEmpty is a usage error for a flag among names given as "": an
// empty id would silently mean the default, which is not what was asked.
func refuseEmpty(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(names, f.Name) && f.Value.String() == "" {
			err = usagef("--%s: is empty; name one, or leave the flag out for the default", f.Name)
		}
	})
	return err
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("schedbot "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// commonFlags are the flags every command that reads the config takes.
type commonFlags struct {
	config, data string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "config file (default $SCHEDBOT_CONFIG, ./schedbot.yaml, or the embedded default)")
	fs.StringVar(&c.data, "data", "", "data directory of the embedded default (default $XDG_DATA_HOME/schedbot, else ~/.local/share/schedbot)")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
