package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/tenant"
)

// maxInput bounds what a command reads from a file or standard input.
const maxInput = 64 << 10

// cli runs one subcommand against the settings service; tests drive it with in-memory
// stores.
type cli struct {
	svc   *settings.Service
	actor string
	in    io.Reader
	out   io.Writer
	// onboard writes what a new tenant starts with beyond its settings (the default
	// approval policy); nil writes nothing.
	onboard func(ctx context.Context, tenantID string) error
}

// forms are the subcommands' usage lines, keyed by name, with how many positional
// arguments each needs at least.
var forms = map[string]struct {
	form string
	min  int
}{
	"create":        {"create TENANT", 1},
	"set":           {"set TENANT KEY VALUE", 3},
	"enable":        {"enable TENANT", 1},
	"rotate-secret": {"rotate-secret TENANT [-purpose ingest|finance|embedded|flow.<system>] [-grace 24h]", 1},
	"reseal":        {"reseal TENANT | reseal -all [-after TENANT] | reseal -check [TENANT]", 0},
	"connector":     {"connector TENANT SYSTEM [BASEURL] [-token-file PATH | -token-stdin] [-token-url URL [-scope SCOPE]]", 2},
	"manifest":      {"manifest TENANT FILE", 2},
	"alias":         {"alias TENANT NAME [SYSTEM]", 2},
	"aliases":       {"aliases TENANT", 1},
	"show":          {"show TENANT", 1},
	"list":          {"list", 0},
}

func (c cli) command(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	f, ok := forms[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
	if len(args) < f.min+1 {
		return fmt.Errorf("usage: tenantctl %s", f.form)
	}
	var err error
	switch args[0] {
	case "create":
		err = c.create(ctx, args[1])
	case "set":
		err = c.set(ctx, args[1], map[string]string{args[2]: args[3]})
	case "enable":
		err = c.set(ctx, args[1], map[string]string{tenant.KeyEnabled: "true", tenant.KeyWebhookEnabled: "true"})
	case "rotate-secret":
		err = c.rotate(ctx, args[1], args[2:])
	case "connector":
		err = c.connector(ctx, args[1], args[2:])
	case "manifest":
		err = c.manifest(ctx, args[1], args[2])
	case "alias":
		err = c.alias(ctx, args[1], args[2:])
	case "aliases":
		err = c.aliases(ctx, args[1])
	case "show":
		err = c.show(ctx, args[1])
	case "reseal":
		err = c.reseal(ctx, args[1:])
	case "list":
		err = c.list(ctx)
	}
	return explain(err)
}

// explain spells out every refused field of a settings change.
func explain(err error) error {
	var inv *settings.InvalidError
	if !errors.As(err, &inv) {
		return err
	}
	var b strings.Builder
	b.WriteString("refused, nothing was changed:")
	for _, f := range inv.Fields {
		fmt.Fprintf(&b, "\n  %s: %s", f.Field, f.Message)
	}
	return errors.New(b.String())
}

func (c cli) who(tenantID string) identity.Identity { return identity.ForTenant(tenantID, c.actor) }

func (c cli) create(ctx context.Context, id string) error {
	secrets, err := c.svc.Admin.Create(ctx, id, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "created tenant %s with both flags 'false'\nits secrets, one per purpose (shown once; store them in the host ERP now):\n", id)
	for _, p := range tenant.Purposes {
		fmt.Fprintf(c.out, "  %-14s %s\n", p, secrets[p])
	}
	if c.onboard != nil {
		if err := c.onboard(ctx, id); err != nil {
			return fmt.Errorf("tenant created, but its default approval policy was not written (it applies anyway until one is saved): %w", err)
		}
		fmt.Fprintf(c.out, "wrote the default approval policy: value and missing fixes on fields not marked sensitive → operator; everything else → approver\n")
	}
	return nil
}

func (c cli) set(ctx context.Context, id string, values map[string]string) error {
	if _, err := c.svc.Apply(ctx, c.who(id), settings.Patch{Settings: values}); err != nil {
		return err
	}
	for _, k := range tenant.KnownSettings {
		v, ok := values[k]
		if !ok {
			continue
		}
		fmt.Fprintf(c.out, "%s: %s = %q\n", id, k, v)
		if isFlag(k) && v != "true" {
			fmt.Fprintf(c.out, "note: only the exact string 'true' enables; %q leaves it off\n", v)
		}
	}
	return nil
}

func isFlag(key string) bool {
	for _, k := range tenant.FeatureFlags {
		if k == key {
			return true
		}
	}
	return false
}

func (c cli) rotate(ctx context.Context, id string, rest []string) error {
	fs := flag.NewFlagSet("rotate-secret", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	grace := fs.Duration("grace", tenant.DefaultRotationGrace, "how long the previous secret keeps verifying")
	purpose := fs.String("purpose", string(tenant.PurposeIngest), "which secret: ingest (the webhook), finance (approval create), embedded (host bootstrap) or flow.<system> (a source's flow change events: flow.hosterp, flow.erp2, flow.crm, flow.marketing, flow.shipping)")
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (use -grace %s)", fs.Arg(0), fs.Arg(0))
	}
	r, err := c.svc.Rotate(ctx, c.who(id), tenant.Purpose(*purpose), *grace)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "new %s secret for %s (shown once):\n%s\nthe previous secret verifies until %s\n",
		r.Purpose, id, r.Secret, r.PreviousRetiresAt.Format(time.RFC3339))
	return nil
}

func (c cli) connector(ctx context.Context, id string, rest []string) error {
	fs := flag.NewFlagSet("connector", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tokenFile := fs.String("token-file", "", "read the credential from this file")
	tokenStdin := fs.Bool("token-stdin", false, "read the credential from standard input")
	var tokenURL, scope optional
	fs.Var(&tokenURL, "token-url", "exchange the credential, as clientId:clientSecret, at this OAuth 2.0 token endpoint ('' to stop)")
	fs.Var(&scope, "scope", "the scope of the client-credentials grant")
	m2m := netsuiteM2MFlags(fs)
	pos, err := parseInterspersed(fs, rest)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return fmt.Errorf("usage: tenantctl %s", forms["connector"].form)
	case len(pos) > 2:
		return fmt.Errorf("unexpected argument %q: a credential is read from -token-file or -token-stdin, never the command line", pos[2])
	}
	system := pos[0]
	var cp *settings.ConnectorPatch
	if len(pos) == 2 {
		cp = &settings.ConnectorPatch{BaseURL: pos[1]}
		if cp.Token, err = c.token(*tokenFile, *tokenStdin); err != nil {
			return err
		}
		if cp.Token, err = m2m.credential(cp.Token); err != nil {
			return err
		}
		cp.TokenURL, cp.Scope = tokenURL.v, scope.v
	} else if *tokenFile != "" || *tokenStdin || tokenURL.v != nil || scope.v != nil {
		return errors.New("a credential or token URL needs a BASEURL; without one the connector is removed")
	}
	patch := settings.Patch{Connectors: map[string]*settings.ConnectorPatch{system: cp}}
	v, err := c.svc.Apply(ctx, c.who(id), patch)
	if err != nil {
		return err
	}
	if cp == nil {
		fmt.Fprintf(c.out, "%s: connector %s removed\n", id, system)
		return nil
	}
	fmt.Fprintf(c.out, "%s: connector %s -> %s\n", id, system, cp.BaseURL)
	if len(v.CredentialsCleared) > 0 {
		fmt.Fprintf(c.out, "note: its stored credential was deleted because its address changed; give it again with -token-file or -token-stdin\n")
	}
	return nil
}

// token reads the connector credential from a file or standard input (trailing newline
// dropped); nil when neither is given, which keeps the stored one.
func (c cli) token(file string, stdin bool) (*string, error) {
	var r io.Reader
	switch {
	case file != "" && stdin:
		return nil, errors.New("give -token-file or -token-stdin, not both")
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	case stdin:
		r = c.in
	default:
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInput))
	if err != nil {
		return nil, fmt.Errorf("reading the credential: %w", err)
	}
	tok := strings.TrimRight(string(b), "\r\n")
	if tok == "" {
		return nil, errors.New("the credential is empty")
	}
	return &tok, nil
}

// optional is a string flag that tells "not given" from "given empty".
type optional struct{ v *string }

func (o *optional) String() string {
	if o.v == nil {
		return ""
	}
	return *o.v
}

func (o *optional) Set(s string) error { o.v = &s; return nil }

// parseInterspersed parses flags wherever they stand among the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func (c cli) manifest(ctx context.Context, id, path string) error {
	r := c.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	var body struct {
		Entries []settings.OverrideView `json:"entries"`
	}
	dec := json.NewDecoder(io.LimitReader(r, maxInput))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return fmt.Errorf(`manifest: want {"entries": [{"entity", "field", "owner", "policy"}]}: %w`, err)
	}
	if body.Entries == nil {
		body.Entries = []settings.OverrideView{}
	}
	if _, err := c.svc.PutOverrides(ctx, c.who(id), body.Entries); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "%s: %d manifest override(s) in force\n", id, len(body.Entries))
	return nil
}

func (c cli) show(ctx context.Context, id string) error {
	cfg, err := c.svc.Admin.Show(ctx, id)
	if err != nil {
		return err
	}
	v, err := c.svc.Get(ctx, id)
	if err != nil {
		return err
	}
	describe(c.out, cfg, v.ManifestOverrides)
	return nil
}

func (c cli) list(ctx context.Context) error {
	cs, err := c.svc.Admin.Store.List(ctx)
	if err != nil {
		return err
	}
	for _, t := range cs {
		fmt.Fprintf(c.out, "%-24s enabled=%-5v webhook_enabled=%-5v secrets=%d\n", t.ID,
			t.Flag(tenant.KeyEnabled), t.Flag(tenant.KeyWebhookEnabled), secretCount(t))
	}
	return nil
}

// secretCount counts the tenant's secrets of every purpose.
func secretCount(c tenant.Config) int {
	n := 0
	for _, p := range tenant.Purposes {
		n += len(*c.Secrets(p))
	}
	return n
}

// fingerprint identifies a secret without revealing any of it.
func fingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:6])
}

func describe(out io.Writer, c tenant.Config, overrides []settings.OverrideView) {
	fmt.Fprintf(out, "tenant %s (created %s, version %d)\n", c.ID, c.CreatedAt.Format(time.RFC3339), c.Version)
	for _, k := range tenant.KnownSettings {
		fmt.Fprintf(out, "  %s = %q\n", k, c.Settings[k])
	}
	for _, p := range tenant.Purposes {
		for _, s := range *c.Secrets(p) {
			state := "current"
			if !s.RetireAt.IsZero() {
				state = "retiring at " + s.RetireAt.Format(time.RFC3339)
			}
			fmt.Fprintf(out, "  %s secret %s created %s, %s\n", p, fingerprint(s.Value), s.CreatedAt.Format(time.RFC3339), state)
		}
	}
	for _, sys := range connector.Systems {
		if cc, ok := c.Connectors[string(sys)]; ok {
			tok := "no token"
			if cc.Token != "" {
				tok = "token " + fingerprint(cc.Token)
			}
			if cc.TokenURL != "" {
				tok += ", client credentials at " + cc.TokenURL
			}
			fmt.Fprintf(out, "  connector %s -> %s (%s)\n", sys, cc.BaseURL, tok)
		}
	}
	for _, o := range overrides {
		field := o.Field
		if field == "" {
			field = "*"
		}
		fmt.Fprintf(out, "  override %s.%s owned by %s, %s\n", o.Entity, field, o.Owner, o.Policy)
	}
	fmt.Fprintf(out, "  feature active: %v\n", c.FeatureEnabled())
}
