"""Labelled cases for the redactor (engram/redact.py), written before its rules were changed.

Every value below is fake, shaped like the real thing. A positive case is a text an agent
could capture (a command, its output, a file it wrote, a prompt) with `secrets`: the
substrings that must not survive redaction, and `keep`: ordinary words next to them that
must survive (redaction must not eat the line). `file` names the file the text was written
to, when the capture path scrubs by file type (a `.env` file: every value is a secret).
A negative case is ordinary content that looks close to a secret and must come through
unchanged.

Split: within each family the cases alternate development / held-out (`split()`), so
every family is represented in both halves. Rules are tuned on the development half only;
bench/redaction_quality.py reports the held-out half separately.

Batch 2 (`POSITIVE_2`, `NEGATIVE_2`; `--split batch2`) was written after an audit of issue
18 found shapes the rules missed, before the rules were changed for them, and is held out
whole: the rules were changed for the audit's own examples, never for these cases. A case
with `clip` goes through `clip_then_redact(text, clip)`, as a captured field longer than its
limit does.

Batch 3 (`POSITIVE_3`, `NEGATIVE_3`; `--split batch3`) holds the five shapes a red team
still found stored in issue 29 (a key in an MCP tool's JSON input, `key=...` in a build
error, a key body line in an edit of a `.pem` file, `NAME_SUFFIX=...` in grep output, "the
password is ..." in a prompt) in variants other than the issue's own, with their near
misses; written before the rules were changed and held out whole.
"""

from __future__ import annotations

# -- positive cases, by family ----------------------------------------------------------------

POSITIVE: dict[str, list[dict]] = {
    # env / config assignments in every common syntax
    "assignment": [
        {"text": "export DB_PASSWORD=Xq7-vLm2-Rt9k", "secrets": ["Xq7-vLm2-Rt9k"], "keep": ["export DB_PASSWORD="]},
        {"text": "export STRIPE_KEY=plainvalue42x", "file": ".env", "secrets": ["plainvalue42x"], "keep": ["STRIPE_KEY"]},
        {"text": "DATABASE_PASSWORD: k8Hq2mZp0Lr", "file": ".env.production", "secrets": ["k8Hq2mZp0Lr"], "keep": ["DATABASE_PASSWORD"]},
        {"text": "SESSION_SIGNING: orbit-velvet-93", "file": "config/.env", "secrets": ["orbit-velvet-93"], "keep": ["SESSION_SIGNING"]},
        {"text": "spring.datasource.password=Wq3rTy7uIo", "secrets": ["Wq3rTy7uIo"], "keep": ["spring.datasource.password"]},
        {"text": 'secret_key = "django-insecure-7h2k9m4n6p8q0r"', "secrets": ["django-insecure-7h2k9m4n6p8q0r"], "keep": ["secret_key"]},
        {"text": '{"username": "svc", "password": "Bq8#mZ2!xR"}', "secrets": ["Bq8#mZ2!xR"], "keep": ["username", "svc"]},
        {"text": "<password>Mv7Yq2Lx9Kw</password>", "secrets": ["Mv7Yq2Lx9Kw"], "keep": ["<password>"]},
        {"text": "set ADMIN_PASSWORD=Zr4Tq8Wm2", "secrets": ["Zr4Tq8Wm2"], "keep": ["ADMIN_PASSWORD"]},
        {"text": '$env:OPENAI_API_KEY = "k3y-f0r-p0wershell-9922"', "secrets": ["k3y-f0r-p0wershell-9922"], "keep": ["OPENAI_API_KEY"]},
        {"text": "ENV SECRET_KEY Hn5Jk7Lm9Pq2", "secrets": ["Hn5Jk7Lm9Pq2"], "keep": ["ENV SECRET_KEY"]},
        {"text": "docker build --build-arg NPM_TOKEN=f7e6d5c4b3a2 .", "secrets": ["f7e6d5c4b3a2"], "keep": ["docker build"]},
        {"text": "docker run -e POSTGRES_PASSWORD=Yw2Xq9Rt4 postgres:16", "secrets": ["Yw2Xq9Rt4"], "keep": ["postgres:16"]},
        {"text": "redis:\n  host: cache.internal\n  password: Gk2Lm4Np6Qr8", "secrets": ["Gk2Lm4Np6Qr8"], "keep": ["cache.internal"]},
        {"text": "$ printenv\nHOME=/home/dev\nMYSQL_PWD=Tq3Wr5Ey7\nSHELL=/bin/bash", "secrets": ["Tq3Wr5Ey7"], "keep": ["HOME=/home/dev", "SHELL=/bin/bash"]},
        {"text": "$ env | sort\nGITHUB_TOKEN=Hx82kLq0Zm19Pw\nLANG=C.UTF-8\nPATH=/usr/bin", "secrets": ["Hx82kLq0Zm19Pw"], "keep": ["LANG=C.UTF-8"]},
        {"text": "declare -x VAULT_TOKEN=\"hvs.CAESIJx9Qm2Lr7Kp4Wz8Ty\"", "secrets": ["hvs.CAESIJx9Qm2Lr7Kp4Wz8Ty"], "keep": ["VAULT_TOKEN"]},
        {"text": "client_secret = 'Qm7Rt2Wx9Zk4'  # staging app", "secrets": ["Qm7Rt2Wx9Zk4"], "keep": ["staging app"]},
        {"text": "  - name: DB_PASS\n    value: \"Pw4Lk8Jh2Gf\"", "secrets": ["Pw4Lk8Jh2Gf"], "keep": ["DB_PASS"]},
        {"text": "MAIL_PASSWORD=sunset-harbor-1999", "file": ".env", "secrets": ["sunset-harbor-1999"], "keep": ["MAIL_PASSWORD"]},
    ],
    # credentials in command lines and URLs
    "command_line": [
        {"text": "mysql -u root -pS3cretPw9 appdb", "secrets": ["S3cretPw9"], "keep": ["mysql -u root", "appdb"]},
        {"text": "curl -u deploy:Vx9Kq2Lm7 https://ci.example.com/api/jobs", "secrets": ["Vx9Kq2Lm7"], "keep": ["https://ci.example.com/api/jobs"]},
        {"text": "sshpass -p 'Rw8Tq3Zx5' ssh ops@10.0.0.4", "secrets": ["Rw8Tq3Zx5"], "keep": ["ssh ops@10.0.0.4"]},
        {"text": "mysqldump --user=app --password Lq4Wm8Nz2 shop > dump.sql", "secrets": ["Lq4Wm8Nz2"], "keep": ["dump.sql"]},
        {"text": "redis-cli -h cache -a Hq7Yt2Kp9 ping", "secrets": ["Hq7Yt2Kp9"], "keep": ["redis-cli -h cache"]},
        {"text": "docker login -u builder -p Zt6Rk3Wq8 registry.example.com", "secrets": ["Zt6Rk3Wq8"], "keep": ["registry.example.com"]},
        {"text": "PGPASSWORD=Kv3Lm9Qx2 psql -h db -U app", "secrets": ["Kv3Lm9Qx2"], "keep": ["psql -h db -U app"]},
        {"text": "openssl pkcs12 -export -in c.pem -passout pass:Tz5Wq1Lr8 -out c.p12", "secrets": ["Tz5Wq1Lr8"], "keep": ["-out c.p12"]},
        {"text": "wget --http-user=ci --http-password=Mq2Xw7Rt4 https://files.example.com/a.tgz", "secrets": ["Mq2Xw7Rt4"], "keep": ["https://files.example.com/a.tgz"]},
        {"text": "git clone https://oauth2:Yq8Wt3Zr6Kp1@gitlab.example.com/team/app.git", "secrets": ["Yq8Wt3Zr6Kp1"], "keep": ["gitlab.example.com/team/app.git"]},
        {"text": "mongosh \"mongodb+srv://admin:Nq5Zr8Wt2@cluster0.abcd.mongodb.net/prod\"", "secrets": ["Nq5Zr8Wt2"], "keep": ["cluster0.abcd.mongodb.net"]},
        {"text": "GET https://api.example.com/v1/items?access_token=Hw7Kq2Zt9Lm4Rx&page=2", "secrets": ["Hw7Kq2Zt9Lm4Rx"], "keep": ["page=2"]},
        {"text": "https://store.blob.core.windows.net/c/f.zip?sv=2021-08-06&se=2025-01-01&sr=b&sp=r&sig=Jq8%2BWm3Rt5Zx7Kp2Lv9Nq4Tz6Yr1Hs0%3D", "secrets": ["Jq8%2BWm3Rt5Zx7Kp2Lv9Nq4Tz6Yr1Hs0%3D"], "keep": ["store.blob.core.windows.net"]},
        {"text": "htpasswd -b .htpasswd admin Qx4Rt8Zm2", "secrets": ["Qx4Rt8Zm2"], "keep": ["htpasswd -b .htpasswd admin"]},
        {"text": "psql \"host=db.internal port=5432 dbname=app user=svc password=Wz3Kq7Rm5\"", "secrets": ["Wz3Kq7Rm5"], "keep": ["host=db.internal"]},
        {"text": "curl -H 'X-Api-Key: 4f9c2a7e1b8d3f6a0c5e9b2d7a4f1c8e' https://api.example.com", "secrets": ["4f9c2a7e1b8d3f6a0c5e9b2d7a4f1c8e"], "keep": ["https://api.example.com"]},
        {"text": "curl -H \"Authorization: token ghs_Qm2Wx7Rt4Zk9Lp3Nv8Yq1Hs6Jd0Fb5Tc\" https://api.github.com/user", "secrets": ["ghs_Qm2Wx7Rt4Zk9Lp3Nv8Yq1Hs6Jd0Fb5Tc"], "keep": ["https://api.github.com/user"]},
        {"text": "lftp -u backup,Rq9Wt2Zx6 sftp://files.example.com", "secrets": ["Rq9Wt2Zx6"], "keep": ["sftp://files.example.com"]},
    ],
    # the contents of credential files (printed with cat, or written)
    "credential_file": [
        {"text": "$ cat ~/.netrc\nmachine api.heroku.com\n  login dev@example.com\n  password 7c1e4b9a-2f3d-4e8a-9b6c-0d5f2a7e3c1b", "secrets": ["7c1e4b9a-2f3d-4e8a-9b6c-0d5f2a7e3c1b"], "keep": ["machine api.heroku.com"]},
        {"text": "machine github.com login octo password Tq8Wr3Zx5Lm2", "secrets": ["Tq8Wr3Zx5Lm2"], "keep": ["machine github.com login octo"]},
        {"text": "$ cat ~/.pgpass\ndb.internal:5432:app:svc:Xw5Rt9Kq3Zm\n*:*:*:postgres:Lq7Zx2Wm4", "secrets": ["Xw5Rt9Kq3Zm", "Lq7Zx2Wm4"], "keep": ["db.internal:5432:app:svc:"]},
        {"text": "[default]\naws_access_key_id = AKIAZ7QW3RT5YU8IO2PL\naws_secret_access_key = Rq8wT3zX5kL2mN9pQ4vB7yH1jD6fG0sA2cE8uI4o", "secrets": ["AKIAZ7QW3RT5YU8IO2PL", "Rq8wT3zX5kL2mN9pQ4vB7yH1jD6fG0sA2cE8uI4o"], "keep": ["[default]"]},
        {"text": "//registry.npmjs.org/:_authToken=9d8c7b6a-5f4e-3d2c-1b0a-9f8e7d6c5b4a", "secrets": ["9d8c7b6a-5f4e-3d2c-1b0a-9f8e7d6c5b4a"], "keep": ["registry.npmjs.org"]},
        {"text": "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJGQ4ZmE5YjJjLTdlM2QtNGY1YS05YjZjLTBkMWUyZjNhNGI1YwACKlszLCJh", "secrets": ["pypi-AgEIcHlwaS5vcmcCJGQ4ZmE5YjJjLTdlM2QtNGY1YS05YjZjLTBkMWUyZjNhNGI1YwACKlszLCJh"], "keep": ["[pypi]", "__token__"]},
        {"text": '{"auths": {"ghcr.io": {"auth": "b2N0bzpnaHBfUXcyRXIzVHk0VXk1SWk2T282UHA3"}}}', "secrets": ["b2N0bzpnaHBfUXcyRXIzVHk0VXk1SWk2T282UHA3"], "keep": ["ghcr.io"]},
        {"text": "https://octo:ghp_Wq3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5@github.com", "secrets": ["ghp_Wq3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5"], "keep": ["github.com"]},
        {"text": "users:\n- name: dev\n  user:\n    token: kubeconfig-u-7x9q2w4e6r8t0y1u3i5o7p9a2s4d6f8g", "secrets": ["kubeconfig-u-7x9q2w4e6r8t0y1u3i5o7p9a2s4d6f8g"], "keep": ["name: dev"]},
        {"text": "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFTVTFMZlZMUEhDb3pNeEgyTW8=", "secrets": ["LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFTVTFMZlZMUEhDb3pNeEgyTW8="], "keep": ["client-key-data"]},
        {"text": "root:$6$Zq8Wt3$Lm2Nv7Xr4Kp9Yq1Hs6Jd0Fb5Tc8Wq3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Qw9Ee1Rr3Tt5:19500:0:99999:7:::", "secrets": ["Lm2Nv7Xr4Kp9Yq1Hs6Jd0Fb5Tc8Wq3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Qw9Ee1Rr3Tt5"], "keep": ["root:"]},
        {"text": "admin:$apr1$Qw3Er5Ty$Zx7Cv9Bn1Mq3Wr5Tz7Yk9", "secrets": ["Zx7Cv9Bn1Mq3Wr5Tz7Yk9"], "keep": ["admin:"]},
        {"text": "[client]\nuser=backup\npassword=Hz4Wq8Rt2Km", "secrets": ["Hz4Wq8Rt2Km"], "keep": ["[client]", "user=backup"]},
        {"text": "sa.json: {\"type\": \"service_account\", \"private_key_id\": \"3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a\", \"client_email\": \"ci@proj.iam.gserviceaccount.com\"}", "secrets": ["3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a"], "keep": ["ci@proj.iam.gserviceaccount.com"]},
    ],
    # cloud and chat-platform tokens, bare or in text
    "token": [
        {"text": "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=Zq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj==;EndpointSuffix=core.windows.net", "secrets": ["Zq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj=="], "keep": ["AccountName=acmestore"]},
        {"text": "Server=tcp:sql.example.net,1433;Database=app;User ID=svc;Password=Kq7Wz2Rt9Lm;Encrypt=True", "secrets": ["Kq7Wz2Rt9Lm"], "keep": ["Database=app"]},
        {"text": "app token: xapp-1-A0B1C2D3E4F-5678901234567-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0", "secrets": ["9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0"], "keep": ["app token"]},
        {"text": "posting to https://hooks.slack.com/services/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", "secrets": ["Zq8Wt3Rx5Km2Lp9Nv4Yq7Hs1"], "keep": ["posting to"]},
        {"text": "webhook = 'https://discord.com/api/webhooks/1123456789012345678/Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7-Aa_Bb2Cc4Dd6Ee8Ff0Gg2Hh4Ii6Jj8'", "secrets": ["Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7-Aa_Bb2Cc4Dd6Ee8Ff0Gg2Hh4Ii6Jj8"], "keep": ["webhook"]},
        {"text": "bot = Bot('7123456789:AAHq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0Tc3E')", "secrets": ["AAHq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0Tc3E"], "keep": ["bot = Bot("]},
        {"text": "SENDGRID: SG.Qw3Er5Ty7Ui9Op1As3Df5G.h7Jk9Lz1Xc3Vb5Nm7Aa2Bb4Cc6Dd8Ee0Ff2Gg4Hh6Ii8", "secrets": ["SG.Qw3Er5Ty7Ui9Op1As3Df5G.h7Jk9Lz1Xc3Vb5Nm7Aa2Bb4Cc6Dd8Ee0Ff2Gg4Hh6Ii8"], "keep": ["SENDGRID"]},
        {"text": "twilio sid AC3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e auth 9e7b2d4f6a8c0e2b4d6f8a1c3e5b7d9f", "secrets": ["9e7b2d4f6a8c0e2b4d6f8a1c3e5b7d9f"], "keep": ["twilio sid"]},
        {"text": "export DIGITALOCEAN_TOKEN=dop_v1_3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d0f1a3c5e7b9d1f3a5c", "secrets": ["dop_v1_3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d0f1a3c5e7b9d1f3a5c"], "keep": ["export"]},
        {"text": "using 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 for the model download", "secrets": ["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"], "keep": ["for the model download"]},
        {"text": "oauth access: ya29.a0AfH6SMBq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9", "secrets": ["ya29.a0AfH6SMBq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9"], "keep": ["oauth access"]},
        {"text": "client id 1234.apps.googleusercontent.com secret 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", "secrets": ["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"], "keep": ["apps.googleusercontent.com"]},
        {"text": "Databricks PAT dapi3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e", "secrets": ["dapi3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e"], "keep": ["Databricks"]},
        {"text": "shopify admin 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", "secrets": ["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"], "keep": ["shopify admin"]},
        {"text": "stripe webhook whsec_Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc", "secrets": ["whsec_Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc"], "keep": ["stripe webhook"]},
        {"text": "groq key gsk_Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Aa2Bb4Cc6Dd8", "secrets": ["gsk_Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Aa2Bb4Cc6Dd8"], "keep": ["groq key"]},
        {"text": "xoxp-1234567890-1234567890123-1234567890123-3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e", "secrets": ["3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e"], "keep": []},
        {"text": "teams: https://acme.webhook.office.com/webhookb2/3f8a1c9e-7b2d-4f6a-8c0e-2b4d6f8a1c3e@9e7b2d4f-6a8c-0e2b-4d6f-8a1c3e5b7d9f/IncomingWebhook/Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1X/1a2b3c4d", "secrets": ["Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1X"], "keep": ["teams:"]},
        {"text": "mailgun key-3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e", "secrets": ["key-3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e"], "keep": ["mailgun"]},
        {"text": "export ANTHROPIC_API_KEY=sk-ant-api03-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Aa2Bb4-Cc6Dd8AA", "secrets": ["Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Aa2Bb4"], "keep": ["export ANTHROPIC_API_KEY="]},
    ],
    # private key material, with or without its armour lines
    "key_material": [
        {"text": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1S\nf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo6Cp3Dq8Er5Fs0Gt7Hu2Iv9Jw4Kx1Ly6Mz3Na8\n-----END RSA PRIVATE KEY-----", "secrets": ["MIIEpAIBAAKCAQEAx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1S", "f6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo6Cp3Dq8Er5Fs0Gt7Hu2Iv9Jw4Kx1Ly6Mz3Na8"], "keep": []},
        {"text": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDHx9Qm2Lr7Kp4W\nz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo\n6Cp3Dq8Er5Fs0Gt7Hu2Iv9Jw4Kx1Ly6Mz3Na8Ob5Pc2Qd7Re4Sf9Tg6Uh3Vi0Wj7X\n-----END PRIVATE KEY-----", "secrets": ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDHx9Qm2Lr7Kp4W", "z8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo"], "keep": []},
        {"text": "key.pem (tail):\nz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo\n6Cp3Dq8Er5Fs0Gt7Hu2Iv9Jw4Kx1Ly6Mz3Na8Ob5Pc2Qd7Re4Sf9Tg6Uh3Vi0Wj7X\nKx1Ly6Mz3Na8Ob5Pc2Qd7Re4Sf9Tg6==\n-----END RSA PRIVATE KEY-----", "secrets": ["z8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo", "6Cp3Dq8Er5Fs0Gt7Hu2Iv9Jw4Kx1Ly6Mz3Na8Ob5Pc2Qd7Re4Sf9Tg6Uh3Vi0Wj7X"], "keep": ["key.pem (tail):"]},
        {"text": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBQx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7PcAAAAkQd9Re1Sf", "secrets": ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "QyNTUxOQAAACBQx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7PcAAAAkQd9Re1Sf"], "keep": []},
        {"text": '"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDHx9Qm2Lr7Kp4W\\nz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo\\n-----END PRIVATE KEY-----\\n", "client_id": "1098"', "secrets": ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDHx9Qm2Lr7Kp4W", "z8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo"], "keep": ["client_id"]},
        {"text": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGXx9QkBCADHx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1\nSf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo6Cp3Dq8Er5Fs0Gt7Hu2Iv9Jw4Kx1Ly6Mz3Na8", "secrets": ["lQOYBGXx9QkBCADHx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1"], "keep": []},
        {"text": "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nPrivate-Lines: 2\nAAABAQCx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5\nWj2Xk7Yl4Zm9An1Bo6Cp3Dq8Er5Fs0Gt7Hu2Iv9Jw4Kx1Ly6Mz3Na8Ob5Pc2Qd7Re4S", "secrets": ["AAABAQCx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5"], "keep": ["Encryption: none"]},
        {"text": "+-----BEGIN EC PRIVATE KEY-----\n+MHcCAQEEIHx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7PoAoGCCqGSM49\n+AwEHoUQDQgAEx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6\n+-----END EC PRIVATE KEY-----", "secrets": ["MHcCAQEEIHx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7PoAoGCCqGSM49"], "keep": []},
        {"text": "AGE-SECRET-KEY-1QX9QM2LR7KP4WZ8TYHS1JD6FB0TC3EW8GU5IA2OB7PC4QD9RE1SF6TG", "secrets": ["AGE-SECRET-KEY-1QX9QM2LR7KP4WZ8TYHS1JD6FB0TC3EW8GU5IA2OB7PC4QD9RE1SF6TG"], "keep": []},
        {"text": "cert ok; key body:\nMIIJQgIBADANBgkqhkiG9w0BAQEFAASCCSwwggkoAgEAAoICAQC7x9Qm2Lr7Kp4W\nz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo", "secrets": ["MIIJQgIBADANBgkqhkiG9w0BAQEFAASCCSwwggkoAgEAAoICAQC7x9Qm2Lr7Kp4W"], "keep": ["cert ok; key body:"]},
    ],
    # natural language: a person (or the agent) saying the secret in words
    "natural_language": [
        {"text": "the staging password is Vq8-Lr3-Wz7, use it for the smoke test", "secrets": ["Vq8-Lr3-Wz7"], "keep": ["use it for the smoke test"]},
        {"text": "my password: Kite!Runner88", "secrets": ["Kite!Runner88"], "keep": ["my password"]},
        {"text": "Log in as admin with password 'Zm7#Qx2$Wr' and check the dashboard", "secrets": ["Zm7#Qx2$Wr"], "keep": ["check the dashboard"]},
        {"text": "The API key for the sandbox is 8f3c2a9e7b1d4f6a0c5e9b2d7a4f1c8e.", "secrets": ["8f3c2a9e7b1d4f6a0c5e9b2d7a4f1c8e"], "keep": ["sandbox"]},
        {"text": "pw is Tr0pic4lStorm, don't share it", "secrets": ["Tr0pic4lStorm"], "keep": ["don't share it"]},
        {"text": "Use the passphrase \"violet lantern copper 42\" to unlock the key", "secrets": ["violet lantern copper 42"], "keep": ["to unlock the key"]},
        {"text": "the token for the deploy bot is Hq2Wx8Rt5Zk3Lm", "secrets": ["Hq2Wx8Rt5Zk3Lm"], "keep": ["deploy bot"]},
        {"text": "credentials: ops / N0v3mb3r-Rain", "secrets": ["N0v3mb3r-Rain"], "keep": ["credentials"]},
        {"text": "I changed the root password to Gl4cier#Bay yesterday", "secrets": ["Gl4cier#Bay"], "keep": ["yesterday"]},
        {"text": "Password for the prod DB = Qz5!Wr8@Tx", "secrets": ["Qz5!Wr8@Tx"], "keep": ["prod DB"]},
        {"text": "here's the secret: Lumen-Orchid-5521", "secrets": ["Lumen-Orchid-5521"], "keep": ["here's the"]},
        {"text": "login admin, password hunter2hunter2 (temporary)", "secrets": ["hunter2hunter2"], "keep": ["(temporary)"]},
    ],
    # high-entropy strings next to a secret word (not in key = value form)
    "near_secret_word": [
        {"text": "signing key 4b9d2f7a1c8e3f6a0d5c9b2e7f4a1d8c", "secrets": ["4b9d2f7a1c8e3f6a0d5c9b2e7f4a1d8c"], "keep": ["signing key"]},
        {"text": "X-API-Key: Zq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6", "secrets": ["Zq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6"], "keep": ["X-API-Key"]},
        {"text": "Authorization: Basic ZGVwbG95OlZ4OUtxMkxtNw==", "secrets": ["ZGVwbG95OlZ4OUtxMkxtNw=="], "keep": ["Authorization"]},
        {"text": "Cookie: sessionid=3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e; theme=dark", "secrets": ["3f8a1c9e7b2d4f6a8c0e2b4d6f8a1c3e"], "keep": ["theme=dark"]},
        {"text": "client secret Qw3Er5Ty7Ui9Op1As3Df5Gh7", "secrets": ["Qw3Er5Ty7Ui9Op1As3Df5Gh7"], "keep": ["client secret"]},
        {"text": "Set-Cookie: auth_session=Zq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0; Path=/; HttpOnly", "secrets": ["Zq8Wt3Rx5Km2Lp9Nv4Yq7Hs1Jd6Fb0"], "keep": ["HttpOnly"]},
        {"text": "generated api token (copy now): 7Hq2Wx8Rt5Zk3LmNv9Yp4", "secrets": ["7Hq2Wx8Rt5Zk3LmNv9Yp4"], "keep": ["copy now"]},
        {"text": "HMAC secret -> a9F3kQ7wZ2xR8mL5vN1cT6yH4jP0sD", "secrets": ["a9F3kQ7wZ2xR8mL5vN1cT6yH4jP0sD"], "keep": ["HMAC"]},
        {"text": "Your personal access token\n  Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc\nMake sure to copy it now.", "secrets": ["Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc"], "keep": ["Make sure to copy it now."]},
        {"text": "private key (hex) 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "secrets": ["4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"], "keep": ["private key"]},
    ],
}

# -- negative cases: ordinary content close to a secret shape, to come through unchanged ----------

NEGATIVE: list[str] = [
    "password = getpass.getpass('Password: ')",
    "token = next(tokens)",
    "max_tokens=4096, temperature=0.2",
    "TOKEN_EXPIRY_SECONDS = 3600",
    "tokenBudget: 1200",
    "auth_middleware = AuthMiddleware(app)",
    "if password != confirm_password:",
    "token_type = 'bearer'",
    "credentials: 'include',",
    "tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')",
    "secret_key_ref:\n  name: db-creds\n  key: password",
    "passwordless: true",
    "authentication failed: invalid password for user alice",
    "Token refresh succeeded for user=alice (expires in 3599s)",
    "commit 3f9a0c1d2e4b5a6f7e8d9c0b1a2f3e4d5c6b7a8f\nAuthor: Dev <dev@example.com>",
    "\"integrity\": \"sha512-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Aa2Bb4Cc6Dd8Ee0Ff2Gg4Hh6Ii8Jj0Kk2Ll4Mm6==\"",
    "image: python@sha256:4b9d2f7a1c8e3f6a0d5c9b2e7f4a1d8c4b9d2f7a1c8e3f6a0d5c9b2e7f4a1d8c",
    "request_id=7c1e4b9a-2f3d-4e8a-9b6c-0d5f2a7e3c1b status=200 duration_ms=42",
    "def check_password(user, password):\n    return hasher.verify(password, user.password_hash)",
    "PASSWORD_MIN_LENGTH = 12",
    "const { token } = await login(user);",
    "api_key_header = APIKeyHeader(name='X-API-Key')",
    "secret = os.environ['APP_SECRET']",
    "export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "api_key: ${OPENAI_API_KEY}",
    "password: process.env.DB_PASSWORD",
    "tests/test_auth.py::test_token_refresh PASSED                [ 42%]",
    "FAILED tests/test_auth.py::test_password_reset - AssertionError: assert 401 == 200",
    "error TS2345: Argument of type 'Token' is not assignable to parameter of type 'string'.",
    "Successfully installed authlib-1.3.0 python-jose-3.3.0 passlib-1.7.4",
    "GET /api/v1/auth/refresh 200 12ms",
    "user_tokens = [t for t in tokens if t.kind == 'user']",
    "The password field must be at least 12 characters long.",
    "See https://docs.example.com/auth/tokens#rotation for how keys are rotated",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7x9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9 dev@laptop",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
    "The secret to fast tests is isolating the database.",
    "git push origin feature/token-rotation",
    "password_reset_timeout_days = 3",
    "Using cached wheel: keyring-24.3.0-py3-none-any.whl",
]



# -- batch 2: held out whole (see the module docstring) ------------------------------------------

_MARGIN = 256  # engram.redact.MARGIN: what clip_then_redact redacts beyond each cut
_FILLER = "".join(f"step {n}: copied assets, built the bundle, ran the checks\n" for n in range(400))


def _cut_in_head(first: str, token: str, limit: int, inside: int) -> str:
    """`first` (a long secret, which shrinks when masked), filler, then `token` with only its
    first `inside` characters in the head's window (limit // 2 + margin): the cut splits it."""
    pad = limit // 2 + _MARGIN - inside - len(first)
    return first + _FILLER[:pad] + token + "\n" + _FILLER[: 2 * limit]


def _cut_in_tail(token: str, last: str, limit: int, inside: int) -> str:
    """`token` with only its last `inside` characters in the tail's window, then filler and
    `last` (a long secret) at the end."""
    after = limit - limit // 2 + _MARGIN - inside
    return _FILLER[: 2 * limit] + token + _FILLER[: after - len(last)] + last


_PEM_2 = ("-----BEGIN PRIVATE KEY-----\n" + "\n".join(
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDOwmZbdX9ELIDELfpm126/xmxN7FutKizwoc4ViQPZaLkp7GXs"
    "GrdCblLiWloSOAtX8tYp2SxJngLDqEXPZhxs4oPOQLXzHENN0T8xPEmXWVrRSmqj/3eDPLlfJZMFGKxuwcyszMXUvS9cE77M43Wf"
    "c582oG9/xJfgKeDXgyOWpPRBg9yU0VGQwuFjwqxlsAK1l2JXhdV20bDMATlnAJ5V42mH1e+TZgo1nSYQHdWZvZdjM8rMWIfrqEFC"
    "5MfWW7iAaoztw17181YmeusHOqj8JKsCjAaj04VURRjLEhivdZVR4B3VdWA7+FeLjbokZVi1KTpARkwsEMJVtXZSrhuv32CdWzhL"
    "/gZ2wDF44ylSVeO/gaAXywqZUUMFkpeUP/zaJRS1U6KrpxHAinRNCZPM1nRZ0Btse4VTMN4CDmdDXJkfgl3cTAESyuQlVHeu3kP0"
    "Lr1Rd/hqM99nWETzf1iDVSd4e3TXyiV7gKWr/WAxDxPfH6FhGZVeiYIFl2S6OlGwx0ichWXnHA21dkgowgm3osB9TiULDlpsca+D"
    "JADeOt8pvf7YwIansDuLfCARcIimNIqdfGzi4wiGJ8Q+CZD94tqkeDaSy2oij+j6rSsKGCpC0WLYCQ=="[i : i + 64]
    for i in range(0, 680, 64)) + "\n-----END PRIVATE KEY-----\n")
_JWT_2 = ("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJcpPBAnb3KxrKw1nNx1XmjIMGuJpeiG8YqL9BN5GGx6KtyQqDTjD3saRZkb2l26n"
          "kaylEMyosHNwyloPdBMZQf4G9SBSqfPDA28uSwNccStq3fiOLUwQmLeR2zufwl8Y2WVWHnATriHmaVXOEpLJ0qrqKdHsF0qHM3XlSd"
          "-D9i_MEeq6iTqTfibBb5z6_aBfCt3xq6KceMheFYV_rKSteQVz1HwG9kX0HM9awdGDwcuCMGPYTZuHVvat77J9OwPsgZt7BpYQ2OQB"
          "ilCFXuF0DRkxhhl8WBH4Rax23OJvs9Vr947x6-M57m9e6ypS-bW3Ohzqp2aoqyr.CGcShfzeyCABax7H8TUSRFLc5nvfBZKVRx8QM9"
          "_b8dGlQnd2VawVTURIOHXvDNkl9jkzoSXPCFgqGYvaROyWI_")
_SSH_2 = ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZbTfFMKOhMp3K47KpLDw/5TKFdpobp",
          "NDOwwsvx9QPp2QqMN+CI4EO6Iw0FMT77Qk+A4v1VM8sGh5HIZbfW1z/M0fd8R3eULKua2Y",
          "PNz55m/A/SPs84nJGYP4gnyVZnvo7D7StPlshr6y79TyDGPIxnAFoaFwd8tO/DpQElwjcm",
          "sGzL3B6xl04BzFSkc+6ZP6GQK/2OLTeC0ZlMIOel2lmY5ntmefCN0gCqQCTDxUn2u1KIx4mA==")
_SSH_ONE_LINE = ("b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIe21odJQhcjhslsW1yJRSPm2mSIhz3yhG9AJks3GOCpY+xdI3tNWyngJRQtd3m"
                 "ik8Dj1HHpD+5Iep3plYsDQqn/VvlgkuLZrAxl+EPUiQTbbGvABz4gZS96pDQfvpb06QsSF39yLTHZKBtNv3NYXuA9vIsE/Ep3Rys"
                 "NTkYpn9P/hi5h5dsW960AmHsz9idWElrkuBQtXg=")
_PKCS8_2 = ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDCdFp1LxETv80C",
            "tm7Uo3+wb18sCAL4jH/4wN7JBwZVQeNFM20Ymzvmkqz3cEhhKU5dOlJcm+mqvra+",
            "PEeZ2r4zLFO6FHmTMdZGpR7wWr8ztBEWIDuNwbksiLTqamYfkI62aFuMWaesXt/C")
_PKCS1_2 = ("MIIEpAIBAAKCAQEA7zqC7X3gvXknDuH8Z+4L+ikqA7+NyArE0DXl5/C+iAdsOx/Y",
            "BzkxPSanbHRBPXz9d2msjIKooo7BiMA5bb3RNP7hHXQKMDrkRUDt+ixByzpBXX5T")
_EC_2 = "MHcCAQEEIAUlrjkad4YgzmCmTt29c/6iASdWwlpnCe3a3SxG1TGhjHhFYnAai2cT1Zua3dWgCQqlA9WdIBvvNhIjR6kqelSuCYHpE62Q"
_GHP_2 = "ghp_5dnIXJijF9xPxR12NcEqxvWTkQ0qeN8TxStx"
_GLPAT_2 = "glpat-px7mriqabwTXPH6KYNBM"
_AWS_2 = "AKIAZ4OE2Z14SKO652D5"
_SK_2 = "sk-proj-e4Lur3ii33YDBDxHC90EU3VgTcDgkw5j15K2cGNxUVHsqJBC"
_DISCORD_2 = ("MTIwNDg1NzM5MjAxNzQ4MzYyNQ.vNbqEE.8eQttjiQNV_0C4L2oXrW8wSzJ88z2QCkmJI2TW",
              "OTg3MTIzNDU2Nzg5MDEyMzQ1.6JH6tJ.aYz7NxWpoiPuj5FDZQlr25wy0OiW1ZjoKHtAj1",
              "MTMwOTg3NjU0MzIxMDk4NzY1NA.f94udn.O0w2INYBaITfIdLYZ1jZSR2D5aveRnzw1dnu5Y",
              "NDU2Nzg5MDEyMzQ1Njc4OTAx.AMGllh.pR9QoTF9Qbe18_0MQfVyFvIxBKCQV8oCBI4mJd",
              "MTE1NjQ3MzgyOTEwNDg1NzM2Mg.UbUOnV.6ye9P3pFIEH9FzHZfJrBniKpdY8",
              "MTIzMDk4NzY1NDMyMTA5ODc2NQ.txzLkm.0fde4bhIlXysv24id0gQjuy4f6GlD6f9JHEobh")

POSITIVE_2: dict[str, list[dict]] = {
    # a password on a command line that does not start the line: a diff's marker, a
    # substitution, a pipe or a list before the command
    "command_line": [
        {"text": "@@ -3,0 +4,1 @@\n+mysql -h reports.db -ureporter -pBrine_Falcon62 analytics", "secrets": ["Brine_Falcon62"], "keep": ["-ureporter", "analytics"]},
        {"text": "-mysqldump -uroot -pOldHarbor_914 --all-databases > all.sql\n+mysqldump -uroot --all-databases > all.sql", "secrets": ["OldHarbor_914"], "keep": ["--all-databases > all.sql"]},
        {"text": " mariadb -u app -pCinder-Moth-2207 -e 'select 1'", "secrets": ["Cinder-Moth-2207"], "keep": ["-e 'select 1'"]},
        {"text": "echo $(mysql -uroot -pQuill7Sparrow -N -e 'select count(*) from t')", "secrets": ["Quill7Sparrow"], "keep": ["select count(*) from t"]},
        {"text": "rows=`mysql -uops -pVesper_Tide31 -se 'select 1'`", "secrets": ["Vesper_Tide31"], "keep": ["rows=`"]},
        {"text": "cd /srv&&mysql -uadmin -pKelp9Lantern app < seed.sql", "secrets": ["Kelp9Lantern"], "keep": ["app < seed.sql"]},
        {"text": "true;mysql -h 10.0.0.9 -udeploy -pOrbit_Canyon44 -e status", "secrets": ["Orbit_Canyon44"], "keep": ["-e status"]},
        {"text": "gunzip -c dump.sql.gz|mysql -uroot -pTalon8Meadow shop", "secrets": ["Talon8Meadow"], "keep": ["gunzip -c dump.sql.gz|", "shop"]},
        {"text": "+sshpass -p 'Hollow#Pine83' rsync -a dist/ web@10.2.0.5:/var/www", "secrets": ["Hollow#Pine83"], "keep": ["rsync -a dist/"]},
        {"text": "+curl --user ci:Marble77Crane https://builds.example.org/api/queue", "secrets": ["Marble77Crane"], "keep": ["https://builds.example.org/api/queue"]},
        {"text": "+docker login -u bot -p Saffron_Gale19 registry.example.io", "secrets": ["Saffron_Gale19"], "keep": ["registry.example.io"]},
        {"text": "+redis-cli -h cache.internal -a Umber5Heron ping", "secrets": ["Umber5Heron"], "keep": ["ping"]},
        {"text": "(mysql -uroot -pRavenStone_58 -e 'show databases') > dbs.txt", "secrets": ["RavenStone_58"], "keep": ["> dbs.txt"]},
        {"text": "sh -c \"mysql -uetl -pBasalt_Wren7 warehouse < load.sql\"", "secrets": ["Basalt_Wren7"], "keep": ["warehouse < load.sql"]},
        {"text": "+  - run: mysql -h 127.0.0.1 -uroot -pWillow3Ember test < schema.sql", "secrets": ["Willow3Ember"], "keep": ["test < schema.sql"]},
        {"text": "if ! mysqladmin -uroot -pJuniper_Flint6 ping; then exit 1; fi", "secrets": ["Juniper_Flint6"], "keep": ["then exit 1"]},
    ],
    # Discord bot tokens (base64 of the bot's id, a timestamp, an HMAC), wherever they are
    "token": [
        {"text": f"client.run('{_DISCORD_2[0]}')", "secrets": [_DISCORD_2[0]], "keep": ["client.run("]},
        {"text": f"+    bot.run(\"{_DISCORD_2[1]}\")", "secrets": [_DISCORD_2[1]], "keep": ["bot.run("]},
        {"text": f"Authorization: Bot {_DISCORD_2[2]}", "secrets": [_DISCORD_2[2]], "keep": ["Authorization"]},
        {"text": f"INFO discord.client logging in using static token {_DISCORD_2[3]} (shard 0)", "secrets": [_DISCORD_2[3]], "keep": ["(shard 0)"]},
        {"text": f"const TOKEN_FALLBACK = [\"{_DISCORD_2[4]}\"];", "secrets": [_DISCORD_2[4]], "keep": ["TOKEN_FALLBACK"]},
        {"text": f"python bot.py {_DISCORD_2[5]}", "secrets": [_DISCORD_2[5]], "keep": ["python bot.py"]},
    ],
    # private key bodies without armour that do not start their line
    "key_material": [
        {"text": "note: " + _SSH_2[0] + "\n" + "\n".join(_SSH_2[1:]), "secrets": list(_SSH_2), "keep": ["note:"]},
        {"text": "Rotate the deploy key; old one was " + _SSH_ONE_LINE + " (revoked)", "secrets": [_SSH_ONE_LINE[:60], _SSH_ONE_LINE[60:]], "keep": ["Rotate the deploy key", "(revoked)"]},
        {"text": "DEBUG loaded signing material " + _PKCS8_2[0] + "\n" + "\n".join(_PKCS8_2[1:]) + "\nINFO ready", "secrets": list(_PKCS8_2), "keep": ["INFO ready"]},
        {"text": "old key: " + _PKCS1_2[0] + "\n" + _PKCS1_2[1] + "\n", "secrets": list(_PKCS1_2), "keep": ["old key:"]},
        {"text": "{\"ssh\": \"" + "\\n".join(_SSH_2) + "\\n\", \"user\": \"deploy\"}", "secrets": list(_SSH_2), "keep": ["\"user\": \"deploy\""]},
        {"text": "+# ec key for staging: " + _EC_2, "secrets": [_EC_2], "keep": ["ec key for staging"]},
        {"text": "> " + "\n> ".join(_PKCS8_2), "secrets": list(_PKCS8_2), "keep": []},
    ],
    # a secret cut by clip_then_redact's clip while an earlier (or later) one shrinks the window
    "clipped": [
        {"text": _cut_in_head(_PEM_2, _GHP_2, 2000, 19), "clip": 2000, "secrets": [_GHP_2[:19]], "keep": ["step 3: copied assets"]},
        {"text": _cut_in_head("Authorization: Bearer " + _JWT_2 + "\n", _GLPAT_2, 4000, 14), "clip": 4000, "secrets": [_GLPAT_2[:14]], "keep": ["Authorization"]},
        {"text": _cut_in_tail(_AWS_2, _PEM_2, 2000, 16), "clip": 2000, "secrets": [_AWS_2[-16:]], "keep": ["-----END PRIVATE KEY-----"]},
        {"text": _cut_in_tail(_SK_2, "token=" + _JWT_2 + "\n", 3000, 30), "clip": 3000, "secrets": [_SK_2[-30:]], "keep": ["token="]},
        {"text": _cut_in_head("", _GHP_2, 2000, 22), "clip": 2000, "secrets": [_GHP_2[:22]], "keep": ["step 1: copied assets"]},
    ],
}

NEGATIVE_2: list[str] = [
    "+mysql -h db -u admin -p shop",
    "+mysql -uroot -p\"$MYSQL_ROOT_PASSWORD\" app",
    "+mysql -uroot -p$DB_PASS app < seed.sql",
    "echo $(mysql --version)",
    "ps -ef|grep mysqld|grep -v grep",
    "for f in *.sql; do mysql -uroot app < \"$f\"; done",
    "+git log -p --stat | less",
    "CFLAGS=`mysql_config --cflags`;make -j4",
    "+    subprocess.run(['mysql', '-uroot', '-p' + password, db])",
    "MyApplicationConfigLoader.loader.load_all_configuration_files()",
    "NotificationServiceClient.notify.send_batch_of_pending_messages_now",
    "OnlyCheckThisDottedNameX.format.something_that_is_long_enough_ok",
    "MTIwNDg1NzM5MjAxNzQ4MzYyNQ is the base64 of the bot's id",
    "pubkey MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5",
    "cert: MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ",
    "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
    "OPENSSH_MAGIC = \"b3BlbnNzaC1rZXktdjE\"  # base64 of 'openssh-key-v1'",
    "checksum: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx9Qm2Lr7Kp4Wz8TyHs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7P deploy@ci",
    "if key.startswith(('MIIE', 'b3BlbnNzaC1rZXktdjE')):\n    return 'private'",
]


# -- batch 3: held out whole (see the module docstring) ------------------------------------------

_PEM_3 = ("Yc2Hw9TfQm4Lr8Zk1Pv6Nx3Bs7Gd0Jh5Ua2Ke9Wq4Ro8Ti1Ly6Mz3Sv7Xb0Cn5Dg2",
          "k7Vq2Xr9Lm4Tz8Wn1Ps6Hd3Gb0Jf5Ky2Ua9Ce4Ro8Ti1Ly6Mz3Sv7Xb0Qn5Dw2Ea",
          "Qx4Rt8Zm2Lk6Np0Vw3Js7Hd1Fg5Cb9Ye2Ua6Ko0Ti4Ly8Mz1Sv5Xb9Qn3Dw7EaTg")
POSITIVE_3: dict[str, list[dict]] = {
    "tool_input": [
        {"text": '{"key": "Hq7Wx2Lm9Rt4", "region": "eu-west-1"}', "secrets": ["Hq7Wx2Lm9Rt4"], "keep": ["eu-west-1"]},
        {"text": '{"name":"deploy","key":"9c4e1a7b3d2f"}', "secrets": ["9c4e1a7b3d2f"], "keep": ["deploy"]},
        {"text": '{"service": "smtp", "password": "Gl4cierBay7"}', "secrets": ["Gl4cierBay7"], "keep": ["smtp"]},
        {"text": '{"args": {"api_token": "Zk3Pq8Wm2Xr"}}', "secrets": ["Zk3Pq8Wm2Xr"], "keep": ["args"]},
    ],
    "build_error": [
        {"text": "error: failed to run custom build command for `vault-sys`\n  auth failed: key=Wm4Tz8Rq2Lp "
                 "not accepted", "secrets": ["Wm4Tz8Rq2Lp"], "keep": ["not accepted"]},
        {"text": "npm ERR! 401 Unauthorized - GET https://registry.example.com/pkg (key=Tx9Vb3Kq7Nw2)",
         "secrets": ["Tx9Vb3Kq7Nw2"], "keep": ["401 Unauthorized"]},
        {"text": "FAILED: signing step exited 2: secret=Pm5Rw8Zq3 invalid", "secrets": ["Pm5Rw8Zq3"], "keep": ["invalid"]},
    ],
    "key_file": [
        {"text": "-" + _PEM_3[0] + "\n+" + _PEM_3[1], "file": "certs/server.pem", "secrets": [_PEM_3[0], _PEM_3[1]],
         "keep": []},
        {"text": "+" + _PEM_3[2][:30], "file": "deploy/id_rsa", "secrets": [_PEM_3[2][:30]], "keep": []},
        {"text": _PEM_3[2], "file": "keys/tls.key", "secrets": [_PEM_3[2]], "keep": []},
    ],
    "grep_output": [
        {"text": "src/settings.py:12:API_KEY_SUFFIX=Nw7Qz2Rk9Vx\nsrc/settings.py:13:DEBUG=false",
         "secrets": ["Nw7Qz2Rk9Vx"], "keep": ["DEBUG=false"]},
        {"text": "deploy/prod.sh:4:export GITHUB_TOKEN_PREFIX=Lp8Xw3Tq6Mz", "secrets": ["Lp8Xw3Tq6Mz"], "keep": ["deploy/prod.sh"]},
        {"text": "config/app.ini:7:SECRET_KEY_HASH=f3a9c2e7b1d4", "secrets": ["f3a9c2e7b1d4"], "keep": ["config/app.ini"]},
    ],
    "prompt": [
        {"text": "log in to the staging box, the password is swordfishmarlin", "secrets": ["swordfishmarlin"],
         "keep": ["staging box"]},
        {"text": "the db password is bluejaypelican and the user is admin", "secrets": ["bluejaypelican"],
         "keep": ["the user is admin"]},
        {"text": "use admin / password: tangerinefalcon for the dashboard", "secrets": ["tangerinefalcon"],
         "keep": ["for the dashboard"]},
    ],
}

NEGATIVE_3: list[str] = [
    '{"key": "user_preferences", "ttl": 3600}',
    '{"key": "section2"}',
    "sorted(rows, key=itemgetter2)",
    "error: no such key=config.yaml in manifest",
    "src/settings.py:12:API_KEY_LENGTH=32",
    "src/settings.py:14:SECRET_KEY_FILE=/run/secrets/app",
    "the password is incorrect, try again",
    "the password is required for every account",
    "the password is hashed with bcrypt before it is stored",
    "The password is stored encrypted.",
    "the password is whatever the vault says",
]

def split(items: list, half: str) -> list:
    """The development half (even positions) or the held-out half (odd positions)."""
    start = 0 if half == "dev" else 1
    return items[start::2]
