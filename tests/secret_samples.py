"""Sample secrets for the sanitizer's tests and the leak audit (issue 17), built here.

Every sample is generated, never real: a template written from the vendor's documented token
format, filled from a seeded RNG (so each run plants the same strings). ``source`` names where
the format is documented: the vendor's page, an RFC, or the rule of an open-source scanner that
ships it — gitleaks ``config/gitleaks.toml`` (MIT; rule id given) or detect-secrets 1.5.0
``detect_secrets/plugins/*.py`` (Apache-2.0; fetched with ``pip download --no-binary :all:
detect-secrets``). No scanner's test data is copied here.

Template fields ``{cN}``: N random characters of class ``c``: ``A`` base62, ``a`` lowercase
alphanumeric, ``h`` lowercase hex, ``H`` uppercase hex, ``U`` uppercase alphanumeric, ``Z``
base32 (``A-Z2-7``), ``w`` ``[A-Za-z0-9_-]``, ``b`` base64 ``[A-Za-z0-9+/]``, ``d`` digits,
``l`` lowercase letters, ``L`` letters, ``B`` bech32. ``⟦…⟧`` marks the secret part of a
template whose text around it is not secret (a webhook's host, a URL's scheme and host);
without it the whole text is the secret.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass

CLASSES = {
    "A": string.ascii_letters + string.digits,
    "a": string.ascii_lowercase + string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "U": string.ascii_uppercase + string.digits,
    "Z": string.ascii_uppercase + "234567",
    "w": string.ascii_letters + string.digits + "_-",
    "b": string.ascii_letters + string.digits + "+/",
    "d": string.digits,
    "l": string.ascii_lowercase,
    "L": string.ascii_letters,
    "B": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
}
_FIELD = re.compile(r"\{([AahHUZwbdlLB])(\d+)\}")

GL = "gitleaks config/gitleaks.toml rule"
DS = "detect-secrets 1.5.0 plugins"

#: (label, template, source): secrets recognisable by their format alone.
FORMATS: tuple[tuple[str, str, str], ...] = (
    ("github_token", "ghp_{A36}", "github.blog 2021-04-05 token formats"),
    ("github_token", "gho_{A36}", "github.blog 2021-04-05 token formats"),
    ("github_token", "ghs_{A36}", "github.blog 2021-04-05 token formats"),
    ("github_token", "github_pat_{A22}_{A59}", "docs.github.com fine-grained PATs"),
    ("openai_key", "sk-proj-{w156}", "platform.openai.com API keys"),
    ("openai_key", "sk-{A20}T3BlbkFJ{A20}", f"{GL} openai-api-key"),
    ("anthropic_key", "sk-ant-api03-{w93}AA", f"{GL} anthropic-api-key"),
    ("anthropic_key", "sk-ant-admin01-{w93}AA", f"{GL} anthropic-admin-api-key"),
    ("stripe_key", "sk_live_{A99}", "docs.stripe.com/keys"),
    ("stripe_key", "rk_live_{A24}", "docs.stripe.com/keys (restricted)"),
    ("stripe_key", "sk_prod_{A32}", f"{GL} stripe-access-token"),
    ("stripe_key", "whsec_{A32}", "docs.stripe.com/webhooks"),
    ("aws_key", "AKIA{Z16}", "docs.aws.amazon.com IAM identifiers"),
    ("aws_key", "ABIA{Z16}", f"{DS} aws.py"),
    ("aws_key", "ACCA{Z16}", f"{DS} aws.py"),
    ("aws_secret_key", "aws_secret_access_key = ⟦{b40}⟧", "docs.aws.amazon.com cli config files"),
    ("aws_bedrock_key", "ABSKQmVkcm9ja0FQSUtleS{b110}", "docs.aws.amazon.com bedrock api-keys"),
    ("google_api_key", "AIza{w35}", "cloud.google.com api-keys"),
    ("google_oauth", "ya29.{w120}", "developers.google.com oauth2"),
    ("google_oauth", "GOCSPX-{w28}", "Google Cloud OAuth client secrets"),
    ("slack_token", "xoxb-{d12}-{d13}-{A24}", "api.slack.com token types"),
    ("slack_token", "xoxp-{d12}-{d12}-{d13}-{h32}", "api.slack.com token types"),
    ("slack_token", "xoxe.xoxp-1-{U163}", f"{GL} slack-config-access-token"),
    ("slack_token", "xoxe-1-{U146}", f"{GL} slack-config-refresh-token"),
    ("slack_token", "xapp-1-A{U10}-{d13}-{h64}", f"{GL} slack-app-token"),
    ("slack_token", "hooks.slack.com/workflows/⟦T{U8}/A{U10}/{d18}/{A24}⟧", f"{GL} slack-webhook"),
    ("slack_token", "hooks.slack.com/services/⟦T{U8}/B{U10}/{A24}⟧", "api.slack.com webhooks"),
    ("telegram_token", "{d10}:AA{w33}", "core.telegram.org/bots/api"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ{w60}.{w43}", "RFC 7519"),
    ("jwt", "ZXlKaGJHY2lPaU{b80}", f"{GL} jwt-base64"),
    ("gitlab_token", "glpat-{w20}", "docs.gitlab.com security/tokens (prefixes)"),
    ("gitlab_token", "gldt-{w20}", "docs.gitlab.com security/tokens (prefixes)"),
    ("gitlab_token", "glrt-{w20}", "docs.gitlab.com security/tokens (prefixes)"),
    ("gitlab_token", "glptt-{h40}", f"{DS} gitlab_token.py"),
    ("gitlab_token", "glcbt-{h2}_{w20}", f"{DS} gitlab_token.py"),
    ("gitlab_token", "glimt-{w25}", f"{DS} gitlab_token.py"),
    ("gitlab_token", "glagent-{w50}", f"{DS} gitlab_token.py"),
    ("gitlab_token", "gloas-{h64}", f"{DS} gitlab_token.py"),
    ("gitlab_token", "glsoat-{w20}", "docs.gitlab.com security/tokens (prefixes)"),
    ("gitlab_token", "glft-{w20}", "docs.gitlab.com security/tokens (prefixes)"),
    ("gitlab_token", "glffct-{w20}", "docs.gitlab.com security/tokens (prefixes)"),
    ("gitlab_token", "GR1348941{w20}", f"{DS} gitlab_token.py (runner registration)"),
    ("huggingface_token", "hf_{L34}", "huggingface.co/docs/hub/security-tokens"),
    ("huggingface_token", "api_org_{L34}", f"{GL} huggingface-organization-api-token"),
    ("sentry_token", "sntryu_{h64}", f"{GL} sentry-user-token"),
    ("sentry_token", "sntrys_eyJpYXQiO{b50}LCJyZWdpb25fdXJs{b60}_{b43}", f"{GL} sentry-org-token"),
    ("azure_secret", "{A3}8Q~{w34}", f"{GL} azure-ad-client-secret"),
    ("azure_secret", "AccountKey=⟦{b86}==⟧", f"{DS} azure_storage_key.py"),
    ("digitalocean_token", "dop_v1_{h64}", "docs.digitalocean.com api tokens"),
    ("digitalocean_token", "doo_v1_{h64}", "docs.digitalocean.com oauth tokens"),
    ("digitalocean_token", "dor_v1_{h64}", "docs.digitalocean.com oauth tokens"),
    ("npm_token", "npm_{A36}", "docs.npmjs.com access tokens"),
    ("pypi_token", "pypi-AgEIcHlwaS5vcmc{w70}", "pypi.org/help api tokens"),
    ("shopify_token", "shpat_{h32}", "shopify.dev access tokens"),
    ("shopify_token", "shpss_{h32}", "shopify.dev access tokens"),
    ("shopify_token", "shpca_{h32}", f"{GL} shopify-custom-access-token"),
    ("shopify_token", "shppa_{h32}", f"{GL} shopify-private-app-access-token"),
    ("sendgrid_key", "SG.{w22}.{w43}", "docs.sendgrid.com api keys"),
    ("grafana_token", "glc_{A40}", "grafana.com docs cloud access policies"),
    ("grafana_token", "glsa_{A32}_{h8}", "grafana.com docs service accounts"),
    ("grafana_token", "eyJrIjoi{A80}", f"{GL} grafana-api-key"),
    ("doppler_token", "dp.pt.{A43}", "docs.doppler.com token formats"),
    ("doppler_token", "dp.st.prd.{A43}", "docs.doppler.com token formats"),
    ("databricks_token", "dapi{h32}", "docs.databricks.com personal access tokens"),
    ("dynatrace_token", "dt0c01.{U24}.{U64}", "docs.dynatrace.com access tokens"),
    ("vault_token", "hvs.{w100}", "developer.hashicorp.com vault tokens"),
    ("vault_token", "hvb.{w150}", "developer.hashicorp.com vault batch tokens"),
    ("terraform_token", "{a14}.atlasv1.{w64}", f"{GL} hashicorp-tf-api-token"),
    ("pulumi_token", "pul-{h40}", "pulumi.com docs access tokens"),
    ("linear_key", "lin_api_{A40}", "linear.app developers"),
    ("mailgun_key", "key-{h32}", "documentation.mailgun.com api keys"),
    ("twilio_key", "SK{h32}", "twilio.com docs api keys"),
    ("rubygems_token", "rubygems_{h48}", "guides.rubygems.org api key scopes"),
    ("clojars_token", "CLOJARS_{a60}", f"{GL} clojars-api-token"),
    ("postman_key", "PMAK-{h24}-{h34}", "learning.postman.com api keys"),
    ("prefect_key", "pnu_{A36}", f"{GL} prefect-api-token"),
    ("readme_key", "rdme_{a70}", f"{GL} readme-api-token"),
    ("scalingo_token", "tk-us-{w48}", f"{GL} scalingo-api-token"),
    ("brevo_key", "xkeysib-{h64}-{A16}", f"{GL} sendinblue-api-token"),
    ("settlemint_token", "sm_pat_{A16}", f"{GL} settlemint-personal-access-token"),
    ("shippo_token", "shippo_live_{h40}", f"{GL} shippo-api-token"),
    ("square_token", "sq0atp-{w22}", "developer.squareup.com access tokens"),
    ("square_token", "sq0csp-{w43}", "developer.squareup.com oauth secrets"),
    ("square_token", "EAAA{w60}", "developer.squareup.com access tokens"),
    ("facebook_token", "EAAC{A120}", f"{GL} facebook-page-access-token"),
    ("perplexity_key", "pplx-{A48}", f"{GL} perplexity-api-key"),
    ("planetscale_token", "pscale_tkn_{w40}", f"{GL} planetscale-api-token"),
    ("planetscale_token", "pscale_pw_{w40}", f"{GL} planetscale-password"),
    ("notion_token", "ntn_{d11}{A35}", f"{GL} notion-api-token"),
    ("openshift_token", "sha256~{w43}", f"{GL} openshift-user-token"),
    ("infracost_key", "ico-{A32}", f"{GL} infracost-api-token"),
    ("intra42_secret", "s-s4t2ud-{h64}", f"{GL} intra42-client-secret"),
    ("maxmind_key", "{A6}_{A29}_mmk", f"{GL} maxmind-license-key"),
    ("age_key", "AGE-SECRET-KEY-1{B58}", "age-encryption.org/v1 (bech32)"),
    ("onepassword_key", "A3-{U6}-{U11}-{U5}-{U5}-{U5}", f"{GL} 1password-secret-key"),
    ("onepassword_key", "ops_eyJ{b260}", f"{GL} 1password-service-account-token"),
    ("adobe_secret", "p8e-{A32}", f"{GL} adobe-client-secret"),
    ("alibaba_key", "LTAI{A20}", f"{GL} alibaba-access-key-id"),
    ("artifactory_token", "AKCp{A69}", f"{GL} artifactory-api-key"),
    ("artifactory_token", "cmVmd{A59}", f"{GL} artifactory-reference-token"),
    ("atlassian_token", "ATATT3{w186}", f"{GL} atlassian-api-token"),
    ("clickhouse_key", "4b1d{A38}", f"{GL} clickhouse-cloud-api-secret-key"),
    ("cloudflare_key", "v1.0-{h24}-{h146}", f"{GL} cloudflare-origin-ca-key"),
    ("duffel_token", "duffel_live_{w43}", f"{GL} duffel-api-token"),
    ("easypost_key", "EZAK{A54}", f"{GL} easypost-api-token"),
    ("flutterwave_key", "FLWSECK_TEST-{h32}-X", f"{GL} flutterwave-secret-key"),
    ("flyio_token", "fo1_{w43}", f"{GL} flyio-access-token"),
    ("flyio_token", "fm2_{b120}", f"{GL} flyio-access-token"),
    ("frameio_token", "fio-u-{w64}", f"{GL} frameio-api-token"),
    ("harness_token", "pat.{w22}.{A24}.{A20}", f"{GL} harness-api-key"),
    ("heroku_key", "HRKU-AA{w58}", f"{GL} heroku-api-key-v2"),
    ("mapbox_token", "sk.eyJ1Ijoi{A60}.{A22}", "docs.mapbox.com access tokens (secret sk.)"),
    ("newrelic_key", "NRAK-{U27}", f"{GL} new-relic-user-api-key"),
    ("newrelic_key", "NRII-{w32}", f"{GL} new-relic-insert-key"),
    ("octopus_key", "API-{U26}", f"{GL} octopus-deploy-api-key"),
    ("sourcegraph_token", "sgp_{h16}_{h40}", f"{GL} sourcegraph-access-token"),
    ("typeform_token", "tfp_{w59}", f"{GL} typeform-api-token"),
    ("yandex_key", "AQVN{w36}", f"{GL} yandex-api-key"),
    (
        "discord_webhook",
        "discord.com/api/webhooks/⟦{d18}/{w68}⟧",
        "discord.com developers webhooks",
    ),
    (
        "teams_webhook",
        "acme.webhook.office.com/webhookb2/⟦{h8}-{h4}-{h4}-{h4}-{h12}@{h8}-{h4}-{h4}-{h4}-{h12}"
        "/IncomingWebhook/{h32}/{h8}-{h4}-{h4}-{h4}-{h12}⟧",
        f"{GL} microsoft-teams-webhook",
    ),
    ("mailchimp_key", "{h32}-us12", "mailchimp.com developer api keys"),
    ("dropbox_token", "sl.{w140}", f"{GL} dropbox-short-lived-api-token"),
    ("contentful_token", "CFPAT-{w43}", "contentful.com docs personal access tokens"),
    ("supabase_key", "sbp_{h40}", "supabase.com docs access tokens"),
    ("supabase_key", "sb_secret_{w31}", "supabase.com docs api keys"),
    ("netlify_token", "nfp_{A36}", "docs.netlify.com personal access tokens"),
    ("render_key", "rnd_{A32}", "render.com docs api keys"),
    ("groq_key", "gsk_{A52}", f"{GL} groq-api-key"),
    ("xai_key", "xai-{A80}", "docs.x.ai api keys"),
    ("replicate_token", "r8_{A37}", "replicate.com docs api tokens"),
    ("langsmith_key", "lsv2_pt_{h32}_{h10}", f"{GL} langsmith-api-key"),
    ("tavily_key", "tvly-{A32}", "docs.tavily.com api keys"),
    ("pinecone_key", "pcsk_{A6}_{A64}", "docs.pinecone.io api keys"),
    ("figma_token", "figd_{w40}", "figma.com developers access tokens"),
    ("airtable_token", "pat{A14}.{h64}", "airtable.com developers personal access tokens"),
    ("bitbucket_token", "ATBB{A32}", "support.atlassian.com bitbucket app passwords"),
    ("circleci_token", "CCIPAT_{A22}_{h40}", "circleci.com docs personal api tokens"),
    ("docker_token", "dckr_pat_{w27}", "docs.docker.com access tokens"),
    ("buildkite_token", "bkua_{h40}", "buildkite.com docs api access tokens"),
    ("sonar_token", "squ_{h40}", "docs.sonarsource.com user tokens"),
    ("plaid_token", "access-production-{h8}-{h4}-{h4}-{h4}-{h12}", f"{GL} plaid-api-token"),
    ("braintree_token", "access_token$production${a16}${h32}", f"{GL} braintree"),
    ("razorpay_key", "rzp_live_{A14}", "razorpay.com docs api keys"),
    ("hubspot_token", "pat-na1-{h8}-{h4}-{h4}-{h4}-{h12}", "developers.hubspot.com private apps"),
    ("firebase_key", "AAAA{w7}:APA91b{w134}", "firebase.google.com FCM legacy server key"),
    ("tencent_key", "AKID{A32}", "cloud.tencent.com access keys"),
    ("ansible_vault", "$ANSIBLE_VAULT;1.1;AES256\n⟦{d64}\n{d64}⟧", "docs.ansible.com vault format"),
    (
        "private_key",
        "-----BEGIN RSA PRIVATE KEY-----\n{b64}\n{b64}\n{b64}\n-----END RSA PRIVATE KEY-----",
        "RFC 7468 §10",
    ),
    (
        "private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{b70}\n{b70}\n-----END OPENSSH PRIVATE KEY-----",
        "openssh PROTOCOL.key",
    ),
    ("url_credentials", "postgres://⟦admin:{A20}⟧@db.internal:5432/app", "RFC 3986 §3.2.1"),
)

#: (name-carrying line with ``{v}``, value template, source): secrets known only by their name.
NAMED: tuple[tuple[str, str, str], ...] = (
    ('client_secret = "{v}"', "{A32}", f"{GL} generic-api-key"),
    ('"password": "{v}"', "Tr0ub4dor&3{A6}", "JSON config, RFC 8259"),
    ("--token {v}", "{A40}", "gh/gitlab CLI flags"),
    ("login --token {v}", "{a40}", "npm/cargo login"),
    ("curl -u deploy:{v} https://api.example.com", "{A24}", f"{GL} curl-auth-user"),
    ("curl -H 'X-Api-Key: {v}' https://api.example.com", "{A32}", f"{GL} curl-auth-header"),
    ("curl -H 'X-Auth-Token: {v}' https://api.example.com", "{h40}", f"{GL} curl-auth-header"),
    ("secret: {v}", "{A28}", "YAML mapping, yaml.org 1.2"),
    ("AUTH_CLIENTSECRET = {v}", "{A32}", f"{GL} generic-api-key"),
    ('AWSToken="{v}"', "{b40}", f"{GL} generic-api-key"),
    ("DB_PASSWORD={v}", "{A16}", f"{GL} database-password"),
    ("heroku_api_key: {v}", "{h8}-{h4}-{h4}-{h4}-{h12}", f"{GL} heroku-api-key"),
    ('twilio_auth_token = "{v}"', "{h32}", "twilio.com docs auth tokens"),
    ("datadog_api_key={v}", "{h32}", f"{GL} datadog-access-token"),
    ('discordBotToken := "{v}"', "{A24}.{w6}.{w38}", f"{GL} discord-api-token"),
    ("$apiSecret .= '{v}';", "{A32}", "PHP assignment"),
    ('<add key="ClearTextPassword" value="{v}" />', "{A20}", f"{GL} nuget-config-password"),
    ("export OKTA_API_TOKEN={v}", "00{w40}", f"{GL} okta-access-token"),
    ("zendesk_token ?= {v}", "{a40}", "GNU make ?= assignment"),
    ("set -x CLOUDFLARE_API_KEY {v}", "{h37}", "fish set; cloudflare global key"),
    ("passwd => '{v}',", "{A18}", "Perl/PHP => pair"),
    ('api_secret <- "{v}"', "{A40}", "R assignment"),
    ("mysql -u root -p{v} app", "{A16}", "mysql -p option"),
    (
        "kind: Secret\ndata:\n  password: {v}",
        "{b32}",
        "kubernetes.io/docs/concepts/configuration/secret",
    ),
)


@dataclass(frozen=True)
class Sample:
    """One kind of planted secret: fill it once per place, so each place gets its own.

    Attributes:
        label: the label it should get (the vendor's), or ``"named"`` (known by its name).
        template: the format (for ``named``, the value's format).
        line: for ``named``, the name-carrying line with ``{v}``; else ``""``.
        source: where the format is documented.
    """

    label: str
    template: str
    line: str
    source: str

    def plant(self, rng: random.Random) -> tuple[str, str]:
        """A fresh ``(text to plant, the secret in it)``."""
        text = fill(self.template, rng)
        if self.line:
            return self.line.replace("{v}", text), text
        if "⟦" in text:
            secret = text[text.index("⟦") + 1 : text.index("⟧")]
            return text.replace("⟦", "").replace("⟧", ""), secret
        return text, text


def fill(template: str, rng: random.Random) -> str:
    """``template`` with each ``{cN}`` replaced by N random characters of class ``c``."""
    return _FIELD.sub(lambda m: "".join(rng.choices(CLASSES[m[1]], k=int(m[2]))), template)


def samples() -> list[Sample]:
    """Every sample kind: format ones first, then the name-keyed ones."""
    out = [Sample(label, t, "", src) for label, t, src in FORMATS]
    out.extend(Sample("named", value, line, src) for line, value, src in NAMED)
    return out


#: Text that is not a secret (issue 17 kind 5): placeholders, public identifiers, key-file
#: paths and names in prose. Written here from the kinds the issue lists.
FALSE_POSITIVES: tuple[str, ...] = (
    "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "SECRET_KEY=0000000000000000000000000000",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    'token: "YourTokenHere"',
    "api_key = 'RANDOMSTRINGHERE'",
    "password: abc123abc123abc123",
    "client_secret = abcdefghijklmnopqrstuvwxyz",
    "SLACK_TOKEN=xoxb-your-token-here",
    'OPENAI_API_KEY="sk-..."',
    "STRIPE_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX",
    "password = ${DB_PASSWORD}",
    "token = <your token>",
    "Authorization: Bearer <token>",
    "api_key: '{{ secrets.API_KEY }}'",
    "secret: changeme",
    "DB_PASSWORD=password123",
    "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx",
    "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGj8xq9Vh2c user@host",
    "primaryKey: userId",
    "foreignKey: 'account_id'",
    'csrf-token: "csrf_token_value"',
    '<meta name="csrf-token" content="{{ csrf_token() }}">',
    "sortKey: createdAt",
    "partitionKey: tenantId",
    "cacheKey = f'user:{user_id}'",
    "the token is refreshed hourly",
    "Your API key is shown once; copy it to a safe place.",
    "Set the secret in the dashboard, then restart.",
    "Keep ~/.ssh/id_rsa.pub on the server and the private key on your laptop.",
    "Generate a key with ssh-keygen; it writes id_ed25519 and id_ed25519.pub.",
    "The .pem extension marks PEM files.",
    "Put the certificate in server.crt and point nginx at it.",
    "stripe publishable key pk_live_51HqGn2KzY8dDl0QfTXjOsIu4Bc",
    "google analytics id UA-12345678-1 and G-ABCDEF1234",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "uuid 123e4567-e89b-12d3-a456-426614174000 of the record",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "the key: press Enter to continue",
    "monkey = banana; turkey = 12",
    "mailto:support@example.com",
    "https://example.com/docs?page=2&sort=asc",
    'ETag: W/"5e15153d-120f"',
    "github.com/owner/repo/blob/main/src/key_store.py",
    "token_count = len(tokens)",
    "secret_name = 'prod-db-password'",
    "password_hash = bcrypt.hashpw(pw, salt)",
    "api_key_header = 'X-Api-Key'",
    "--token-file ~/.config/gh/token",
    "kubectl get secret db-creds -o yaml",
    "password: ********",
    "TOKEN=test",
    "access_token: null",
    "x-api-key: EXAMPLE_KEY_1234567890",
    "AIzaSyExampleExampleExampleExampleExam",
    "webhook: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "sk_live_EXAMPLEEXAMPLEEXAMPLE",
    "key-0123456789abcdef0123456789abcdef example from the docs",
)
