// Command tenantctl onboards tenants and changes their settings: create one, set its flags,
// configure its connectors and manifest overrides, rotate its secrets, show or list them.
// Every change but create goes through the settings service the admin API uses (one
// mechanism: the same validation, the same audit, with the actor "tenantctl:<user>"). It
// talks to a stage's tables through the AWS SDK's default configuration, so the same
// command works against AWS (credentials, AWS_REGION) and locally (AWS_ENDPOINT_URL_DYNAMODB
// pointing at the emulator; `make tenantctl` sets it).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

const usage = `usage: tenantctl [-stage STAGE] [-table NAME] COMMAND ...

commands:
  create TENANT                  create a tenant (flags off) and print its secrets once, one per
                                 purpose: ingest (the webhook), finance (approval create),
                                 embedded (host bootstrap) and one per flow source system
                                 (flow.hosterp, flow.erp2, flow.crm, flow.marketing,
                                 flow.shipping: that system's change events)
  set TENANT KEY VALUE           set a setting; only the exact string 'true' enables a flag
                                 keys: sync_error_assist.enabled, sync_error_assist.webhook_enabled,
                                 embedded.allowed_roles (comma-separated roles, e.g. operator,approver)
  enable TENANT                  set both flags to 'true'
  rotate-secret TENANT [-purpose ingest|finance|embedded|flow.<system>] [-grace 24h]
                                 make a new secret of the purpose (default ingest) current and
                                 print it once; the old one keeps verifying for the grace
                                 period, then stops. A tenant created before flow sources had
                                 secrets gets its first one this way
  connector TENANT SYSTEM [BASEURL] [-token-file PATH | -token-stdin] [-token-url URL [-scope S]]
            [-client-id ID -certificate-id ID -private-key-file PEM]
                                 configure one of the tenant's systems (hosterp, erp2, crm,
                                 marketing, shipping); without BASEURL it is removed. The
                                 credential is read from a file or standard input, never from
                                 the command line; without either the stored one is kept,
                                 unless the base or token URL changes: then it is deleted.
                                 With -token-url the credential is "clientId:clientSecret" for
                                 the OAuth 2.0 client-credentials grant there (Business
                                 Central; -token-url '' sends the credential as is). NetSuite's
                                 machine-to-machine login signs with a certificate's key
                                 instead: -client-id ID -certificate-id ID -private-key-file
                                 PEM (the certificate ID of the integration's M2M mapping)
  manifest TENANT FILE           replace the tenant's manifest overrides with the JSON in FILE
                                 ('-' reads standard input): {"entries": [{"entity", "field",
                                 "owner", "policy"}]}, as PUT /api/settings/manifest-overrides
  alias TENANT NAME [SYSTEM]     make NAME, as the tenant's hosts send it (an error's
                                 externalSystem, e.g. "Business Central"), resolve to SYSTEM
                                 (hosterp, erp2, crm, marketing, shipping); without SYSTEM
                                 remove the tenant's own NAME. Names compare without case;
                                 the tenant's own override the defaults
  aliases TENANT                 print the system names in force, the defaults marked
  reseal TENANT | reseal -all [-after TENANT] | reseal -check [TENANT]
                                 seal values stored before each secret purpose had its own
                                 encryption context again under their purpose, one audit
                                 entry per tenant and kind of value (once after upgrading;
                                 needs the key's Decrypt for every purpose). -all does every
                                 tenant in id order and prints the cursor to resume a stopped
                                 run from (-after); a second run changes nothing. -check
                                 changes nothing: it counts the values left and fails while
                                 any are, so run it before deploying with kmsRequirePurpose
  show TENANT                    print settings, connectors, overrides and secret metadata
                                 (never a secret or credential)
  list                           list tenants

The tables default to <stage>-<name>; -stage defaults to $STAGE or "dev". Connector base URLs
must be https and resolve to public addresses unless CONNECTORS_ALLOW_LOCAL=true (the local
stack's make tenantctl sets it).
`

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tenantctl:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
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
	awsCfg, err := platform.AWSConfigFromEnv(env)
	if err != nil {
		return fmt.Errorf("aws config: %w", err)
	}
	// The platform seals with the stack's KMS key (TENANT_SECRETS_KEY_ARN) in AWS and with
	// LOCAL_SEALING_KEY (from .local/local.env) locally, as the functions do.
	b := platform.New(cfg, awsCfg, env)
	svc := settings.New(b)
	policies := policy.Policies{Docs: dynamo.NewDynamoClaims(b.DB, b.Config.Table(blueprint.Processed))}
	onboard := func(ctx context.Context, id string) error { return policies.Onboard(ctx, id, time.Now()) }
	return cli{svc: svc, actor: "tenantctl:" + operator(), in: in, out: out, onboard: onboard}.command(ctx, fs.Args())
}

// operator names who runs the command, for the audit trail.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
