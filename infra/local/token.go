package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/identity/devissuer"
)

// devTokenOptions are the flags of `local token`.
type devTokenOptions struct {
	role, tenant, subject string
	ttl                   time.Duration
}

// tokenCommand prints a development JWT for a role, signed by the local stack's dev
// issuer, and nothing else on stdout, so `$(make token ROLE=approver)` can be pasted
// into an Authorization header.
func tokenCommand(args []string) error {
	opts, err := parseTokenArgs(args)
	if err != nil {
		return err
	}
	root, err := emulators.FindRoot()
	if err != nil {
		return err
	}
	return mintDevToken(os.Stdout, root, opts)
}

func parseTokenArgs(args []string) (devTokenOptions, error) {
	flags := flag.NewFlagSet("token", flag.ContinueOnError)
	var o devTokenOptions
	flags.StringVar(&o.role, "role", "", "role of the token: operator, approver or admin (required)")
	flags.StringVar(&o.tenant, "tenant", demoTenant, "tenant_id of the token")
	flags.StringVar(&o.subject, "sub", "", "subject of the token (default dev-<role>)")
	flags.DurationVar(&o.ttl, "ttl", 8*time.Hour, "lifetime of the token")
	if err := flags.Parse(args); err != nil {
		return o, err
	}
	switch {
	case flags.NArg() > 0:
		return o, fmt.Errorf("token: unexpected argument %q", flags.Arg(0))
	case o.role == "":
		return o, errors.New("token: -role is required: operator, approver or admin")
	case !identity.KnownRole(o.role):
		return o, fmt.Errorf("token: unknown role %q: want operator, approver or admin", o.role)
	case o.tenant == "":
		return o, errors.New("token: -tenant must not be empty")
	case o.ttl <= 0:
		return o, errors.New("token: -ttl must be positive, such as 8h")
	}
	if o.subject == "" {
		o.subject = "dev-" + o.role
	}
	return o, nil
}

// mintDevToken loads (or creates) the dev issuer key in the state dir, the same file
// the local stack serves the JWKS of, and writes one token to w. The issuer and audience
// follow what the running stack wrote to local.env, so the token verifies there.
func mintDevToken(w io.Writer, root string, o devTokenOptions) error {
	state := localStateDir(root)
	iss, err := devissuer.Load(filepath.Join(state, "dev-issuer.pem"))
	if err != nil {
		return err
	}
	env, err := readDevEnv(filepath.Join(state, "local.env"))
	if err != nil {
		return err
	}
	if v := env["JWT_ISSUER"]; v != "" {
		iss.URL = v
	}
	if v := env["JWT_AUDIENCE"]; v != "" {
		iss.Audience = v
	}
	tok, err := iss.Mint(o.subject, o.tenant, []string{o.role}, o.ttl)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, tok)
	return err
}

// readDevEnv reads KEY=VALUE lines; a missing file is an empty one (the stack has not run
// yet, and the defaults apply).
func readDevEnv(path string) (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out, sc.Err()
}
