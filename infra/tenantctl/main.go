// Command tenantctl onboards tenants: create one, set its flags, rotate its webhook secret,
// show or list them. It talks to the tenant table of a stage through the AWS SDK's default
// configuration, so the same command works against AWS (credentials, AWS_REGION) and
// locally (AWS_ENDPOINT_URL_DYNAMODB pointing at the emulator; `make tenantctl` sets it).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/sealed/kmskey"
	"github.com/syncassist/syncassist/shared/tenant"
)

const usage = `usage: tenantctl [-stage STAGE] [-table NAME] COMMAND ...

commands:
  create TENANT                  create a tenant (flags off) and print its secrets once, one per
                                 purpose: ingest (the webhook), finance (approval create) and
                                 embedded (host bootstrap)
  set TENANT KEY VALUE           set a setting; only the exact string 'true' enables a flag
                                 keys: sync_error_assist.enabled, sync_error_assist.webhook_enabled,
                                 embedded.allowed_roles (comma-separated roles, e.g. operator,approver)
  enable TENANT                  set both flags to 'true'
  rotate-secret TENANT [-purpose ingest|finance|embedded] [-grace 24h]
                                 make a new secret of the purpose (default ingest) current and
                                 print it once; the old one keeps verifying for the grace
                                 period, then stops
  connector TENANT SYSTEM [BASEURL [TOKEN]]
                                 configure one of the tenant's systems (hosterp, erp2, crm,
                                 marketing, shipping); without BASEURL it is removed
  connector-oauth TENANT SYSTEM [TOKENURL [SCOPE]]
                                 make the connector's token "clientId:clientSecret" for the
                                 OAuth 2.0 client-credentials grant at TOKENURL (NetSuite,
                                 Business Central); without TOKENURL the token is sent as is
  show TENANT                    print settings and secret metadata (never secret values)
  list                           list tenants

The table defaults to <stage>-tenant_config; -stage defaults to $STAGE or "dev".
`

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tenantctl:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("tenantctl", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage) }
	stage := fs.String("stage", "", "deployment stage")
	table := fs.String("table", "", "tenant table name (overrides -stage)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no command")
	}
	env := os.Getenv
	if *stage != "" {
		env = func(k string) string {
			if k == "STAGE" {
				return *stage
			}
			return os.Getenv(k)
		}
	}
	cfg, err := platform.ConfigFromEnv(env)
	if err != nil {
		return err
	}
	if *table != "" {
		cfg.Tables[blueprint.TableTenants] = *table
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	store := dynamostore.NewTenants(dynamodb.NewFromConfig(awsCfg), cfg.Table(blueprint.Tenants))
	store.Keeper = keeper(cfg, awsCfg)
	return command(ctx, tenant.Admin{Store: store, Keeper: store.Keeper}, fs.Args(), out)
}

// keeper seals what tenantctl writes: with the stack's KMS key (TENANT_SECRETS_KEY_ARN, the
// stack's TenantSecretsKeyArn output) in AWS, with the local stack's key (LOCAL_SEALING_KEY,
// from .local/local.env) locally. Without either, secrets are written as given.
func keeper(cfg platform.Config, awsCfg aws.Config) tenant.Keeper {
	switch {
	case cfg.SecretsKeyARN != "":
		return &sealed.Sealer{Wrapper: kmskey.New(awsCfg, awsCfg.BaseEndpoint, cfg.SecretsKeyARN)}
	case cfg.LocalSealingKey != nil:
		return &sealed.Sealer{Wrapper: cfg.LocalSealingKey}
	}
	return nil
}

// command runs one subcommand against admin; it is separate from run so tests can drive it
// with any store.
func command(ctx context.Context, admin tenant.Admin, args []string, out io.Writer) error {
	need := func(n int, form string) error {
		if len(args) < n+1 {
			return fmt.Errorf("usage: tenantctl %s", form)
		}
		return nil
	}
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	switch args[0] {
	case "create":
		if err := need(1, "create TENANT"); err != nil {
			return err
		}
		secrets, err := admin.Create(ctx, args[1], nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "created tenant %s with both flags 'false'\nits secrets, one per purpose (shown once; store them in the host ERP now):\n", args[1])
		for _, p := range tenant.Purposes {
			fmt.Fprintf(out, "  %-8s %s\n", p, secrets[p])
		}
	case "set":
		if err := need(3, "set TENANT KEY VALUE"); err != nil {
			return err
		}
		if err := admin.Set(ctx, args[1], args[2], args[3]); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: %s = %q\n", args[1], args[2], args[3])
		if args[3] != "true" {
			fmt.Fprintf(out, "note: only the exact string 'true' enables; %q leaves it off\n", args[3])
		}
	case "enable":
		if err := need(1, "enable TENANT"); err != nil {
			return err
		}
		for _, k := range tenant.FeatureFlags {
			if err := admin.Set(ctx, args[1], k, "true"); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "%s: both flags 'true'\n", args[1])
	case "rotate-secret":
		if err := need(1, "rotate-secret TENANT [-purpose ingest|finance|embedded] [-grace 24h]"); err != nil {
			return err
		}
		rfs := flag.NewFlagSet("rotate-secret", flag.ContinueOnError)
		grace := rfs.Duration("grace", tenant.DefaultRotationGrace, "how long the previous secret keeps verifying")
		purpose := rfs.String("purpose", string(tenant.PurposeIngest), "which secret: ingest (the webhook), finance (approval create) or embedded (host bootstrap)")
		if err := rfs.Parse(args[2:]); err != nil {
			return err
		}
		if rfs.NArg() > 0 {
			return fmt.Errorf("unexpected argument %q (use -grace %s)", rfs.Arg(0), rfs.Arg(0))
		}
		secret, err := admin.RotateSecret(ctx, args[1], tenant.Purpose(*purpose), "", *grace)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "new %s secret for %s (shown once):\n%s\nthe previous secret verifies until %s\n",
			*purpose, args[1], secret, now(admin).Add(*grace).Format(time.RFC3339))
	case "connector":
		if err := need(2, "connector TENANT SYSTEM [BASEURL [TOKEN]]"); err != nil {
			return err
		}
		baseURL, token := "", ""
		if len(args) > 3 {
			baseURL = args[3]
		}
		if len(args) > 4 {
			token = args[4]
		}
		if !knownSystem(args[2]) {
			return fmt.Errorf("unknown system %q: want one of %v", args[2], connector.Systems)
		}
		if err := admin.SetConnector(ctx, args[1], args[2], baseURL, token); err != nil {
			return err
		}
		if baseURL == "" {
			fmt.Fprintf(out, "%s: connector %s removed\n", args[1], args[2])
		} else {
			fmt.Fprintf(out, "%s: connector %s -> %s\n", args[1], args[2], baseURL)
		}
	case "connector-oauth":
		if err := need(2, "connector-oauth TENANT SYSTEM [TOKENURL [SCOPE]]"); err != nil {
			return err
		}
		tokenURL, scope := "", ""
		if len(args) > 3 {
			tokenURL = args[3]
		}
		if len(args) > 4 {
			scope = args[4]
		}
		if err := admin.SetConnectorOAuth(ctx, args[1], args[2], tokenURL, scope); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: connector %s token URL %q\n", args[1], args[2], tokenURL)
	case "show":
		if err := need(1, "show TENANT"); err != nil {
			return err
		}
		c, err := admin.Show(ctx, args[1])
		if err != nil {
			return err
		}
		describe(out, c)
	case "list":
		cs, err := admin.Store.List(ctx)
		if err != nil {
			return err
		}
		for _, c := range cs {
			fmt.Fprintf(out, "%-24s enabled=%-5v webhook_enabled=%-5v secrets=%d\n", c.ID,
				c.Flag(tenant.KeyEnabled), c.Flag(tenant.KeyWebhookEnabled), len(c.WebhookSecrets)+len(c.FinanceSecrets)+len(c.EmbeddedSecrets))
		}
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
	return nil
}

func knownSystem(s string) bool { return connector.System(s).Known() }

func now(a tenant.Admin) time.Time {
	if a.Now != nil {
		return a.Now().UTC()
	}
	return time.Now().UTC()
}

// fingerprint identifies a secret without revealing any of it.
func fingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:6])
}

func describe(out io.Writer, c tenant.Config) {
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
	fmt.Fprintf(out, "  feature active: %v\n", c.FeatureEnabled())
}
