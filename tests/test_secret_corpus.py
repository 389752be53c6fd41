"""Two corpora for redaction: every attack's secret gone as a whole token (no head, no tail
left), every false positive kept byte for byte; and the same properties over generated values."""

from __future__ import annotations

import base64
import re
import string

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vaultmem.notes import redact, secretspan

# Fake values, assembled so that no line of this file is itself a key.
GH40 = "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyZABCD"  # longer than detect-secrets' 36
_MARK = re.compile("‹redacted:[^›]*›")
ATTACKS: list[tuple[str, str]] = [
    # (text, the secret that must not survive)
    ("the prod db password is hunter2-xyz", "hunter2-xyz"),
    ("ok, set it to " + "whsec_" + "abcdefghijklmnopqrstuvwxyz012345", "whsec_abcdefghijklmnopqrstuvwxyz012345"),
    ("the password for the admin account is 'Summer2024!'", "Summer2024!"),
    ("use S3cr3t-Passw0rd as the password", "S3cr3t-Passw0rd"),
    ("with password Tr0ub4dor3x we log in", "Tr0ub4dor3x"),
    ("the api key is 9f8e7d6c5b4a39281706f5e4d3c2b1a0, rotate it", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("mysql -uroot -pS3cretPass! -h db.local", "S3cretPass!"),
    ("mysql -u root -p S3cretPass9 -h db.local", "S3cretPass9"),
    ("mysqldump -h db -P 3306 -u admin -pXyz123abc shop", "Xyz123abc"),
    ("psql --password=Secr3t-Pass db", "Secr3t-Pass"),
    ("tool --password Secr3t-Pass --host x", "Secr3t-Pass"),
    ("deploy --api-key Zq81xLmP0wQe7 --region eu", "Zq81xLmP0wQe7"),
    ("curl -u admin:S3cr3tPw https://api.example.com", "S3cr3tPw"),
    ("curl --user admin:S3cr3tPw https://api.example.com", "S3cr3tPw"),
    ("redis-cli -a Sup3rS3cret ping", "Sup3rS3cret"),
    ("sshpass -p Sup3rS3cret ssh deploy@host", "Sup3rS3cret"),
    ("redis://:Sup3rS3cretPw@cache.internal:6379/0", "Sup3rS3cretPw"),
    ("postgres://admin:p@ss-w0rd-long@db.internal/shop", "p@ss-w0rd-long"),
    ("https://:tok3nValue99@registry.example.com/", "tok3nValue99"),
    ("Authorization: Basic YWRtaW46c2VjcmV0cGFzc3dvcmQ=", "YWRtaW46c2VjcmV0cGFzc3dvcmQ="),
    ("-H 'Authorization: Token abcd1234efgh5678ijkl'", "abcd1234efgh5678ijkl"),
    ("Authorization: Bearer abc.def-ghi_jkl123", "abc.def-ghi_jkl123"),
    ("API_KEY=123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000"),
    ("heroku_api_key = 01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),
    ("GITHUB_TOKEN=8f14e45fceea167a5a36dedd4ea2543f1234abcd", "8f14e45fceea167a5a36dedd4ea2543f1234abcd"),
    (f"the token is {GH40}.", GH40),
    ("rk_" + "live_51H8abcdefghijklmnopqrstuvwx", "rk_live_51H8abcdefghijklmnopqrstuvwx"),
    ("xox" + "p-123456789012-1234567890123-abcdefghijklmnopqrstuvwx", "xoxp-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"),
    ("npm_" + "abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("glpat-" + "abcdefghij1234567890", "glpat-abcdefghij1234567890"),
    ("github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("sk-" + "ant-api03-abcdefghijklmnopqrstuvwxyz0123", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"),
    ("sk-" + "proj-abcdefghijklmnopqrstuvwxyz0123456789", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"),
    ("AIza" + "SyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("AKIA" + "IOSFODNN7EXAMPL3 / ASIA" + "IOSFODNN7EXAMPL4", "IOSFODNN7EXAMPL3"),
    ("SG." + "abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"),
    ("key-" + "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    ("dop_" + "v1_" + "0123456789abcdef" * 4, "0123456789abcdef" * 4),
    ("hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"),
    ("shpat_" + "0123456789abcdef0123456789abcdef", "shpat_0123456789abcdef0123456789abcdef"),
    ("SK" + "0123456789abcdef0123456789abcdef twilio", "SK0123456789abcdef0123456789abcdef"),
    ("pypi-" + "AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0", "AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0"),
    ("eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36P", "SflKxwRJSMeKKF2QT4fwpMeJf36P"),
    ("ghp_" + "1234567890abcdefghij\nklmnopqrstuvwxyZ", "klmnopqrstuvwxyZ"),
    ("OPENAI_API_KEY=sk-proj-" + "abcdefghij0123\n  456789KLMNOPQRSTUV", "456789KLMNOPQRSTUV"),
    ("here: " + base64.b64encode(("token " + GH40).encode()).decode() + " end",
     base64.b64encode(("token " + GH40).encode()).decode()),
    ("-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz"),
    ("export DATABASE_URL=mysql://root:Pa55word@localhost/db", "Pa55word"),
    ("client secret: 8Zr2xPl0vNc7YtbQ", "8Zr2xPl0vNc7YtbQ"),
    ("machine api.example.com login deploy password S3cret!", "S3cret!"),
    ("| DB password | Hunter2xyz |", "Hunter2xyz"),
    ("password -> Hunter2xyz", "Hunter2xyz"),
    ("docker login -u deploy -p S3cretPw9 registry.example.com", "S3cretPw9"),
    ("ldapsearch -x -D cn=admin -w S3cretPw9 -b dc=x", "S3cretPw9"),
    ("openssl pkcs12 -in a.p12 -passin pass:S3cretPw9", "S3cretPw9"),
    ("keytool -list -keystore k.jks -storepass S3cretPw9", "S3cretPw9"),
    ("7z x a.7z -pS3cretPw9", "S3cretPw9"),
    ("zip -P S3cretPw9 out.zip a.txt", "S3cretPw9"),
    ("sqlcmd -S db -U sa -P S3cretPw9", "S3cretPw9"),
    ("smbclient //srv/share -U admin%S3cretPw9", "S3cretPw9"),
    ("Server=tcp:db;User ID=sa;Password=P@ssw0rd1;", "P@ssw0rd1"),
    ("jdbc:mysql://db/shop?user=root&password=S3cretPw9", "S3cretPw9"),
    ("https://discord.com/api/webhooks/123456789012345678/" + "abcdefghijklmnopqrstuvwxyz" * 3,
     "abcdefghijklmnopqrstuvwxyz" * 3),
    ("set the SECRET_KEY env var to 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc"),
    ("the passphrase is correct-horse-battery-staple-42", "correct-horse-battery-staple-42"),
    ('{\\"password\\": \\"S3cret99x\\"}', "S3cret99x"),
    ('"{\\"api_key\\":\\"Zq81xLmP0wQe7Rt5\\"}"', "Zq81xLmP0wQe7Rt5"),
    ("I set the password to 'hunter two 42'", "hunter two 42"),
    ("HEROKU_API_KEY is 01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),
    ('STRIPE_KEY = "01234567-89ab-cdef-0123-456789abcdef"', "01234567-89ab-cdef-0123-456789abcdef"),
    # A Windows path is kept (below), a password beside a domain or a one-letter user is not.
    ("curl -u 'CORP\\deploy:S3cr3tPw9' https://api.example.com", "S3cr3tPw9"),
    ("curl -u a:S3cr3tPw9 https://api.example.com", "S3cr3tPw9"),
    ("tool --token C:\\keys\\aB3dE5fG7hJ9kL1mN2pQ4rS6tU", "C:\\keys\\aB3dE5fG7hJ9kL1mN2pQ4rS6tU"),
    ("the password is Pa55\\word99", "Pa55\\word99"),
    ("Cookie: session=eyJ1c2VyIjoxfQ.Zq81xL.mP0wQe7abcDEF123ghi", "eyJ1c2VyIjoxfQ.Zq81xL.mP0wQe7abcDEF123ghi"),
    ("_auth=Ym9iOnNlY3JldHBhc3N3b3Jk", "Ym9iOnNlY3JldHBhc3N3b3Jk"),
    ("echo 'S3cr3tValu3!' | docker login ghcr.io -u bob --password-stdin", "S3cr3tValu3!"),
    ("the new admin pw is Tango-Foxtrot-91", "Tango-Foxtrot-91"),
    ("the passphrase is correct-horse-battery-staple", "correct-horse-battery-staple"),
    ("rabbitmqctl add_user bob R4bbitPass", "R4bbitPass"),
    ("htpasswd -bc .htpasswd bob Ht4ccessPw", "Ht4ccessPw"),
    ("openssl enc -aes-256-cbc -k MyEncKey123 -in f", "MyEncKey123"),
    ("az login -u bob@x.com -p AzP4ssword1", "AzP4ssword1"),
    ("net user deploy Dep1oyPass /add", "Dep1oyPass"),
    ("<password>S3cret99x</password>", "S3cret99x"),
    ('<add key="ApiKey" value="abc123XYZdef456" />', "abc123XYZdef456"),
    ('variable "db_password" {\n  type = string\n  default = "TfPass123"\n}', "TfPass123"),
    ("ssh-keygen -t ed25519 -N 'K3yPassphr4se' -f id", "K3yPassphr4se"),
    ("vercel env add API_SECRET production <<< 'v3rc3lS3cret'", "v3rc3lS3cret"),
    ("gh secret set DB_PASS --body 'D8Pass123'", "D8Pass123"),
    ("netlify env:set STRIPE_SECRET Str1peS3cret", "Str1peS3cret"),
    ("echo 'R00tPass' | wrangler secret put DB_PASSWORD", "R00tPass"),
    ("mot de passe : Soleil2024", "Soleil2024"),
    ("das Passwort ist Sonne2024x", "Sonne2024x"),
    ("la contraseña es Sol2024abc", "Sol2024abc"),
    ("пароль: Solnce2024", "Solnce2024"),
    ("服务器的密码是 Taiyang2024", "Taiyang2024"),
    ("パスワード: Taiyou2024", "Taiyou2024"),
    # A .pgpass line; a login and its password in prose; userinfo without a scheme.
    ("db.internal:5432:shop:admin:PgPa55word", "PgPa55word"),
    ("echo '*:*:*:postgres:hunter2pg' >> ~/.pgpass", "hunter2pg"),
    ("login with admin / S3cretPass", "S3cretPass"),
    ("Login: deploy / Passw0rd!", "Passw0rd!"),
    ("creds: admin / Adm1nPw2024", "Adm1nPw2024"),
    ("user admin, pass Adm1nPass!", "Adm1nPass!"),
    ("ssh root:R00tPassX@10.0.0.5", "R00tPassX"),
    ("connect to admin:Adm1nPw@db.local:5432", "Adm1nPw"),
    ("the root password for the NAS: N4sR00tPw", "N4sR00tPw"),
    ("la password è Ciao2024x", "Ciao2024x"),
    ("la clave es Clave2024x", "Clave2024x"),
    ("le mot de passe est Bonjour2024", "Bonjour2024"),
    ("Das Kennwort lautet Hallo2024x", "Hallo2024x"),
    # Signed URLs, Vault tokens, a SendGrid key of today's length.
    ("https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=AbCdEf0123456789%2BghIJkl%2FmnOPq",
     "AbCdEf0123456789%2BghIJkl%2FmnOPq"),
    ("https://b.s3.amazonaws.com/k?X-Amz-Signature=" + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
     "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
    ("export VAULT_ADDR=https://v:8200 && vault login hvs." + "CAESIJ8kX2mK9pL4tR8wN3vZ6cD1", "CAESIJ8kX2mK9pL4tR8wN3vZ6cD1"),
    ("SG." + "aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVw", "wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVw"),
    # Round two: a name quoted beside its value, settings stored without '=', SQL and Oracle,
    # Redis, Windows commands, password hashes, more services' tokens, more languages.
    ("define( 'DB_PASSWORD', 'WpPa55word!' );", "WpPa55word!"),
    ('dotnet user-secrets set "Db:Password" "D0tnetPw1"', "D0tnetPw1"),
    ("requests.get(url, auth=('bob', 'R3qAuthPw'))", "R3qAuthPw"),
    ("yarn config set npmAuthToken Ab12Cd34Ef56Gh78Ij90", "Ab12Cd34Ef56Gh78Ij90"),
    ("npm config set //registry.npmjs.org/:_authToken Zy98Xw76Vu54Ts32Rq10", "Zy98Xw76Vu54Ts32Rq10"),
    ("set -x DB_PASSWORD Hunter2xy", "Hunter2xy"),
    ("setx API_KEY Ab12Cd34Ef56Gh78", "Ab12Cd34Ef56Gh78"),
    ('ConvertTo-SecureString "PsS3cure!" -AsPlainText -Force', "PsS3cure!"),
    ("CREATE USER 'bob'@'%' IDENTIFIED BY 'MyIdPw99';", "MyIdPw99"),
    ("sqlplus system/OraPw123@//db:1521/XE", "OraPw123"),
    ("requirepass Foobared123", "Foobared123"),
    ("net use Z: \\\\srv\\share /user:CORP\\bob NetUsePw1", "NetUsePw1"),
    ("psexec \\\\host -u admin -p PsExecPw1 cmd", "PsExecPw1"),
    ("root:$6$rounds=5000$saltsalt$Hx0TSRb5VgPo6vWzXy2wLq1dE9fKj8hG3:19000:0:99999:7:::",
     "Hx0TSRb5VgPo6vWzXy2wLq1dE9fKj8hG3"),
    ("bob:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/", "HqJZimcKQFAMYayBlzkrA/"),
    ("pat" + "AbCdEfGhIjKlMn." + "0123456789abcdef" * 4, "0123456789abcdef" * 4),
    ("ATBB" + "AbCdEfGhIjKlMnOpQrStUvWx0123456789AB", "AbCdEfGhIjKlMnOpQrStUvWx0123456789AB"),
    ("secret_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG"),
    ("my pass is Sunny2024x", "Sunny2024x"),
    ("lösenordet är Svensk2024", "Svensk2024"),
    ("passordet er Norsk2024", "Norsk2024"),
    ("пароль от базы — Baza2024x", "Baza2024x"),
    ("كلمة المرور: Arab2024x", "Arab2024x"),
    ("הסיסמה היא Heb2024xy", "Heb2024xy"),
    ("पासवर्ड है Hindi2024x", "Hindi2024x"),
    ("kata sandi: Indo2024x", "Indo2024x"),
    ("mật khẩu là Viet2024x", "Viet2024x"),
    # Round three: cookies, keychains, Wi-Fi, password managers, masks, secret stores, psk.
    ("Cookie: sessionid=k3j4h5g6f7d8s9a0q1w2e3r4t5y6u7i8; theme=dark", "k3j4h5g6f7d8s9a0q1w2e3r4t5y6u7i8"),
    ('env::set_var("API_KEY", "RustK3y12345")', "RustK3y12345"),
    ("aws secretsmanager create-secret --name db --secret-string Sm5ecretPw1", "Sm5ecretPw1"),
    ("security add-generic-password -a bob -s svc -w MacKeych4in", "MacKeych4in"),
    ('network={\n  ssid="home"\n  psk="WiFiPassw0rd"\n}', "WiFiPassw0rd"),
    ("wpa_passphrase home WiFiPa55word2", "WiFiPa55word2"),
    ("bw login bob@example.com BwMasterPw1", "BwMasterPw1"),
    ("printf 'DkS3cretPw' | docker secret create db_pw -", "DkS3cretPw"),
    ('echo "::add-mask::Gh4ctionsPw"', "Gh4ctionsPw"),
    # Round four (issue 28): Vault's older tokens, bare login pairs, cloud stores' value flags.
    ("export VAULT_TOKEN=" + "s.NCiia3anXn9k3ksu9mI4ROnl", "s.NCiia3anXn9k3ksu9mI4ROnl"),
    ("VAULT_TOKEN: s.abcdefghijklmnopqrstuvwx", "s.abcdefghijklmnopqrstuvwx"),
    ("vault login s.RTvetw0tESulEETldq8b8Vw2", "s.RTvetw0tESulEETldq8b8Vw2"),
    ("vault login -no-print Tok3nFromCi42", "Tok3nFromCi42"),
    ('curl -H "X-Vault-Token: s.zbJYAxyL1aCcTlN99mhWp708" $VAULT_ADDR/v1/kv', "s.zbJYAxyL1aCcTlN99mhWp708"),
    ("use admin/Admin123! to log in", "Admin123!"),
    ("sign in to Grafana with admin/Admin123!", "Admin123!"),
    ("Log into the router (admin/Passw0rd) and reboot it", "Passw0rd"),
    ("the seeded user is qa_bot/Qa-Bot#2024, log in and check", "Qa-Bot#2024"),
    ("aws ssm put-parameter --name /prod/db/password --value SsmPassw0rd9 --type SecureString",
     "SsmPassw0rd9"),
    ("aws ssm put-parameter --type SecureString --name /prod/api --value 'Ssm Pass w0rd!'",
     "Ssm Pass w0rd!"),
    ("aws ssm put-parameter --name /app/api-key --value SsmK3y0123456", "SsmK3y0123456"),
    ("Stored (`aws ssm put-parameter --name /prod/db/password --value SsmPassw0rd9`), done.",
     "SsmPassw0rd9"),
    ("aws secretsmanager put-secret-value --secret-id db --secret-string SmPutPw77x", "SmPutPw77x"),
    ("az keyvault secret set --vault-name kv --name db --value AzKvPassw0rd", "AzKvPassw0rd"),
    ("echo -n 'GcpS3cretPw' | gcloud secrets versions add db-pass --data-file=-", "GcpS3cretPw"),
    # A credentials file's pair: the secret key has no name of its own.
    ("AKIA" + "IOSFODNN7EXAMPL5,wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzXAMPLEKEY"),
    # sudo reads its password from stdin with -S: an agent without a terminal pipes it in.
    ("echo 'Mk8!sudoPw' | sudo -S apt update", "Mk8!sudoPw"),
    ("printf 'Mk8!sudoPw9' | sudo --stdin systemctl restart nginx", "Mk8!sudoPw9"),
    ("sudo -S <<< 'HereStr!Pw9' apt upgrade", "HereStr!Pw9"),
    ("mosquitto_pub -h broker -u iot -P Mqtt!Pw88 -t t -m 1", "Mqtt!Pw88"),
    ("[Environment]::SetEnvironmentVariable('DB_PASS', 'WinEnvPw!9', 'User')", "WinEnvPw!9"),
    # A table names its secret once, in the header; the rows only give values.
    ("| env | user | password |\n|---|---|---|\n| staging | admin | Xk2!mq88Lp |", "Xk2!mq88Lp"),
    ("| Service | API key |\n| :-- | :-- |\n| maps | 9f8e7d6c5b4a39281706f5e4d3c2b1a0 |",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    # A wireless network's key is its password, whatever it is called.
    ("The wifi key for Guest is `sunflower-meadow-88`.", "sunflower-meadow-88"),
    ("WPA2 key: Garden!Gate99", "Garden!Gate99"),
    ('network={\n  ssid="Home"\n  psk="Garden!Gate99"\n}', "Garden!Gate99"),
    # A question asking for a secret, and the answer the person chose (AskUserQuestion's result
    # and the choice record made of it).
    ('"Which password should the admin user get?"="Adm!nChoice77". You can now continue.',
     "Adm!nChoice77"),
    ("What password for the db user? — chose: Db!Pw-4421; not chosen: generate one", "Db!Pw-4421"),
    ("Which password should admin get? — chose: generate; not chosen: Hunter!22x, a passphrase",
     "Hunter!22x"),
    # Round five (issue 28): newer vendors' tokens, a vendor's own Authorization scheme, a key
    # or a JWT wrapped after its name or its dot, a value on the line after its label, PINs and
    # keypad codes, recovery codes and seed phrases, the password word with more words before
    # its verb, an API key in other languages, more qualifiers of "key".
    ("use " + "tskey-" + "auth-kQ7xL2mN9CNTRL-Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5 when joining",
     "kQ7xL2mN9CNTRL-Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5"),
    ("langsmith: " + "lsv2_" + "pt_4f9a2c7e1b3d4a5f8e6c0b9a7d2e1f3c_8b7a6c5d4e",
     "4f9a2c7e1b3d4a5f8e6c0b9a7d2e1f3c_8b7a6c5d4e"),
    ("pinecone " + "pcsk_" + "4XqL9m_Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3Uv6Wx9", "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2"),
    ("1Password SA: " + "ops_" + "eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSIsInVzZXJBdXRo",
     "eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSIsInVzZXJBdXRo"),
    ("the google refresh token came back: " + "1//0" + "gZr8Vb3Wc6Yd1CgYIARAAGBASNwF-L9IrQx7Lm2Vn9Bc4",
     "gZr8Vb3Wc6Yd1CgYIARAAGBASNwF-L9IrQx7Lm2Vn9Bc4"),
    ("render key " + "rnd_" + "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2", "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2"),
    ("dropbox " + "sl." + "BZr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3Uv6Wx9Ya1Bc4De7Fg0Hi3Jk6Lm9No2Pq5",
     "BZr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3Uv6Wx9Ya1Bc4De7Fg0Hi3Jk6Lm9No2Pq5"),
    (("https://acme.webhook.office.com/webhookb2/7c9e2f1a-4b3d@1a2b3c4d-4b3d/IncomingWebhook/"
     "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs/7c9e2f1a-4b3d"), "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs"),
    ("curl -H 'Authorization: SSWS 00Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8' https://x.okta.com/api/v1/users",
     "00Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8"),
    ("Authorization: GenieKey Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5", "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5"),
    ('curl -H "Authorization: OAuth Qa29Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm" https://x', "Qa29Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm"),
    (("-----BEGIN OpenVPN Static key V1-----\n4f9a2c7e1b3d4a5f8e6c0b9a7d2e1f3c\n"
     "8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d\n-----END OpenVPN Static key V1-----"), "8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d"),
    ("[Peer]\nPresharedKey = Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3Uv6Wx9Ya1=", "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3Uv6Wx9Ya1="),
    ("HMAC key: 6b3a9f0c2d1e4f5a8b7c6d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a",
     "6b3a9f0c2d1e4f5a8b7c6d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a"),
    ("the jwt was eyJhbGciOiJSUzI1NiJ9." + "eyJzdWIiOiJib2IifQ.\nZr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3",
     "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/\nbPxRfiCYzq8Hh3Lk2Q", "bPxRfiCYzq8Hh3Lk2Q"),
    ("password: >-\n  Folded!Pw2024", "Folded!Pw2024"),
    ("db:\n  password:\n    Nested!Pw77", "Nested!Pw77"),
    ("the password is\nLinebreak!Pw8", "Linebreak!Pw8"),
    ("signing secret in hex:\n6b3a9f0c2d1e4f5a8b7c6d9e0f1a2b3c4d5e6f7a8b9c0d1e",
     "6b3a9f0c2d1e4f5a8b7c6d9e0f1a2b3c4d5e6f7a8b9c0d1e"),
    ("    12→  password:\n    13→    Numbered!Pw7", "Numbered!Pw7"),
    ("use pin 4821 for the sim", "4821"),
    ("The SIM PIN is 739154.", "739154"),
    ("my bank card PIN: 0417", "0417"),
    ("the door code is 58213#", "58213"),
    ("il codice PIN è 55821", "55821"),
    ("2FA backup codes: 8h3k-2m9x, 4q7z-1p5w, 9r2t-6y8u", "9r2t-6y8u"),
    ("recovery codes: 48213-90517 37264-18093", "37264-18093"),
    ("seed phrase: orbit vessel quantum lemon frost cabin ripple salad tunnel mirror panda glue",
     "orbit vessel quantum lemon frost cabin ripple salad tunnel mirror panda glue"),
    ("la contraseña de la base de datos es Mar!2024x", "Mar!2024x"),
    ("le mot de passe du compte admin est Soleil!Ete9", "Soleil!Ete9"),
    ("Das Passwort für den Server lautet Berg!Tal77", "Berg!Tal77"),
    ("het wachtwoord van de router is Fiets!Nl88", "Fiets!Nl88"),
    ("der API-Schlüssel lautet Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm", "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm"),
    ("la clé API est Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm", "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm"),
    ("**Password:** Bold!Pw2024", "Bold!Pw2024"),
    ("Password ⇒ Arrow!Pw77", "Arrow!Pw77"),
    ("I typed Typed!Pw88 into the password field", "Typed!Pw88"),
    ("sure, the token's value is QxTok7Lm2Vn9Bc4Rt6Yu", "QxTok7Lm2Vn9Bc4Rt6Yu"),
    ("Password was reset to Reset!Pw2026 by IT", "Reset!Pw2026"),
    ("secret (base64): U3VwM3JTM2NyZXQhUGFzc3dvcmQ=", "U3VwM3JTM2NyZXQhUGFzc3dvcmQ="),
    ("postgresql+asyncpg://app:Pg/Slash9x@db.internal:5432/app", "Pg/Slash9x"),
    ("sqlcmd -S db -U sa -P'Sq1!Pw99' -Q 'select 1'", "Sq1!Pw99"),
    # A record's name and value fields, a row naming its secret in a cell, Windows' /p: switches,
    # commands that read a password from stdin, a quoted passphrase of PGPASSWORD, a signed URL's
    # signature and a query's API key.
    ('env:\n  - name: DB_PASSWORD\n    value: "K8sVal!Pw9"', "K8sVal!Pw9"),
    ('{"name": "STRIPE_SECRET_KEY", "value": "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm"}', "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm"),
    ("| Name | Value |\n|---|---|\n| DB_PASSWORD | Tbl!Row88 |", "Tbl!Row88"),
    ("xfreerdp /u:admin /p:RdpPw!9x /v:10.0.0.9", "RdpPw!9x"),
    ("cmdkey /add:fs01 /user:corp\\bob /pass:CmdK3y!pw", "CmdK3y!pw"),
    ("echo Plain!Pw4821 | passwd --stdin deploy", "Plain!Pw4821"),
    ("gpg --passphrase-fd 0 --batch -d f.gpg <<< 'GpgHere!9'", "GpgHere!9"),
    ("PGPASSWORD='river stone lamp 9' pg_dump -h db app", "river stone lamp 9"),
    (("https://d1.cloudfront.net/a.mp4?Expires=1700000000&Signature=Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5N~q2Pt8"
     "&Key-Pair-Id=K2ABC"), "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5N~q2Pt8"),
    ("https://maps.googleapis.com/maps/api/geocode/json?address=x&key=Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2",
     "Zr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2"),
    # Round six: a passphrase of plain words on the line after its label or quoted right after
    # its word, a password word and a value mixing cases around a symbol, a bare "key" and a
    # long hex or base64 run, an expect script's answer to a password prompt.
    ("Your vault passphrase is:\n    lantern pebble orchard violet", "lantern pebble orchard violet"),
    ("Recovery passphrase:\n\n  ox elm ivy yak", "ox elm ivy yak"),
    ("the passphrase is: tundra maple quiver basalt", "tundra maple quiver basalt"),
    ("set passphrase 'xo qi vu ka' on the key", "xo qi vu ka"),
    ('the passphrase "wet dog eats socks" opens it', "wet dog eats socks"),
    ("relay password Relay#Mail for the smtp box", "Relay#Mail"),
    ("my password Summer!Beach", "Summer!Beach"),
    ("key 7c1e9a44b02d5f3e8a6b9c0d1e2f3a4b", "7c1e9a44b02d5f3e8a6b9c0d1e2f3a4b"),
    ("the key is 9e8d7c6b5a49382716f5e4d3c2b1a0ff", "9e8d7c6b5a49382716f5e4d3c2b1a0ff"),
    ("key: Qm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==", "Qm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg=="),
    ('expect "password:"\nsend "Exp!Send42\\r"', "Exp!Send42"),
    ('expect "*assword*" { send -- "Tcl2Expect9\\r" }', "Tcl2Expect9"),
    ("child.expect('Passphrase:')\nchild.sendline('pexpect words 7')", "pexpect words 7"),
    ("carol / Wint3r!Sun, dave / Spr1ng#Rain", "Spr1ng#Rain"),
    ("staging: ops/Qx7!vault; ci/Rk2#build", "Qx7!vault"),
    # A group named a secret whose entries' names are none: an INI or TOML section, a YAML
    # mapping, an inline table; a token after an Authorization scheme of any name; an API key as
    # curl's user with no name; a private key whose header a line break cut.
    ("[credentials]\nops = Qx7!vault2\nci = Rk2#build9\n", "Rk2#build9"),
    ('[tokens]\n# prod\nbilling = "Zr8Vb3Wc6Yd1Fe4"\n', "Zr8Vb3Wc6Yd1Fe4"),
    ("secrets:\n  mailer: Ml9!relayPw\n  region: eu-west-1\n", "Ml9!relayPw"),
    ('creds = { carol = "Wint3r!Sun", dave = "Spr1ng#Rain" }', "Spr1ng#Rain"),
    ('{"credentials": {"svc": "Zr8Vb3Wc6Yd1Fe4", "name": "prod"}}', "Zr8Vb3Wc6Yd1Fe4"),
    ("Authorization: Acme-HMAC 7c9e2f1a-4b3d-4e5f-8a6b-9c0d1e2f3a4b", "7c9e2f1a-4b3d-4e5f-8a6b-9c0d1e2f3a4b"),
    ('{"Authorization": "Custom 7c9e2f1a-4b3d-4e5f-8a6b-9c0d1e2f3a4b"}', "7c9e2f1a-4b3d-4e5f-8a6b-9c0d1e2f3a4b"),
    (("Authorization: AWS4-HMAC-SHA256 Credential=x/20260101/s3, SignedHeaders=host, "
     "Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"),
     "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"),
    ("curl -u :Zr8Vb3Wc6Yd1Fe4Gh https://api.example.com", "Zr8Vb3Wc6Yd1Fe4Gh"),
    (("-----BEGIN PRIVATE\nKEY-----\nMIIEvZr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3Uv6Wx9Ya1Bc4De7Fg0Hi3Jk6\n"
     "-----END PRIVATE KEY-----"), "MIIEvZr8Vb3Wc6Yd1Fe4Gh7Jk0Lm5Nq2Pt8Rs3Uv6Wx9Ya1Bc4De7Fg0Hi3Jk6"),
    # Round seven: HTTP Digest's response, a token as a URL's whole userinfo, ODBC's braced and
    # ADO's bare passwords, Azure's connection string keys, more CLIs' password flags, a passcode,
    # a value before its secret word, a wifi network and its password.
    (('Authorization: Digest username="alice", realm="api", nonce="dcd98b7102dd2f0e8b11d0f600b",'
      ' uri="/", response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c"'),
     "6629fae49393a05397450978507c4ef1"),
    ('curl sent Digest username="bob", response="e966c932a9242554e42c8ee200cec7f6", nonce="ab"',
     "e966c932a9242554e42c8ee200cec7f6"),
    ("Proxy-Authorization: Digest username=u, nonce=n1, response=a1b2c3d4e5f60718293a4b5c6d7e8f90",
     "a1b2c3d4e5f60718293a4b5c6d7e8f90"),
    ("git remote set-url origin https://gHtok12345abcdeXYZ9@github.com/acme/api.git",
     "gHtok12345abcdeXYZ9"),
    ("https://Zr8Vb3Wc6Yd1Fe4Gh7Jk0:x-oauth-basic@github.com/acme/api", "Zr8Vb3Wc6Yd1Fe4Gh7Jk0"),
    ("pip install git+https://oauth2:glXk82mQpZ7rT4vY@gitlab.example.com/grp/pkg.git",
     "glXk82mQpZ7rT4vY"),
    ("mongodb+srv://admin:Mng0Pass77@cluster0.abcd.mongodb.net/test", "Mng0Pass77"),
    ("jdbc:mysql://root:JdbcPw77@localhost:3306/app", "JdbcPw77"),
    ("postgres://u:p4ss@h/db", "p4ss"),
    ("Driver={ODBC Driver 18};Server=tcp:db,1433;Uid=sa;Pwd={Pa;ss=w0rd!};Encrypt=yes;",
     "Pa;ss=w0rd!"),
    ('conn = "Provider=SQLOLEDB;Data Source=srv;User ID=sa;Password={abc;def};"', "abc;def"),
    ("Host=localhost;Username=postgres;Password=Npgsql99;Database=app", "Npgsql99"),
    ("InstrumentationKey=4f8e2c1a-9b3d-4e5f-8a7b-6c9d0e1f2a3b;IngestionEndpoint=https://x.azure.com/",
     "4f8e2c1a-9b3d-4e5f-8a7b-6c9d0e1f2a3b"),
    ("APPLICATIONINSIGHTS_CONNECTION_STRING=InstrumentationKey=9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d",
     "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d"),
    ("HostName=hub.azure-devices.net;DeviceId=d1;SharedAccessKey=AbCdEfGh1234567890IjKlMnOpQrSt=",
     "AbCdEfGh1234567890IjKlMnOpQrSt="),
    ("snowsql -a acct -u me -p Sn0wPass!x -d db", "Sn0wPass!x"),
    ("snowsql -a xy12345 -u loader -p loaderpw", "loaderpw"),
    ("cqlsh -u cassandra -p cassandrapw host", "cassandrapw"),
    ("vsql -U dbadmin -w VerticaPw9 -h host", "VerticaPw9"),
    ("sshpass -p plainsecret ssh deploy@host", "plainsecret"),
    ("ipmitool -I lanplus -H 10.0.0.9 -U admin -P ipmisecret power status", "ipmisecret"),
    ("the passcode is 7731-9925", "7731-9925"),
    ("the door passcode: 55128", "55128"),
    ("passcode 318274 for the vault door", "318274"),
    ("Hunter2Blue is the admin password", "Hunter2Blue"),
    ("`Tr0ub4dor` is the password for staging", "Tr0ub4dor"),
    ("use `Adm1n-Gr8` for the admin password", "Adm1n-Gr8"),
    ("4821-9930 was the PIN, for the record", "4821-9930"),
    ("wifi: HomeNet / Pass!77", "Pass!77"),
    ("WiFi: Guest-5G / welcome123", "welcome123"),
    # Round eight (issue 28): a value in bold before its secret word, an unclosed bold.
    ("use **Zq7-hunter2-Lk** as the admin password", "Zq7-hunter2-Lk"),
    ("I used `Qx!9-lamp` as my password", "Qx!9-lamp"),
    ("set the api key to **Xy9abc123def", "Xy9abc123def"),
    # A password of one dictionary word (secretwords' rule).
    ("the password is sunshine", "sunshine"),
    ("my password was letmein.", "letmein"),
    ("the wifi password is sunshine, the SSID is Home", "sunshine"),
    ("the password for bob is dragon", "dragon"),
    ("password is **sunshine**", "sunshine"),
    ('login admin password "sunshine"', "sunshine"),
    # A question naming the secret, and its answer.
    ("the admin password? it's Zebra!42", "Zebra!42"),
    ("what's the db password? Zebra!42", "Zebra!42"),
    ("root password? — Zebra!42", "Zebra!42"),
    ("Q: what is the admin password? A: Zebra!42", "Zebra!42"),
    ("password? it's sunshine", "sunshine"),
    ("DB password -> Hunter2!x", "Hunter2!x"),
    # A shell's environment assignment in prose, a libpq connection string: a word is a value.
    ("set DB_PASSWORD=sunshine in your env", "sunshine"),
    ("run PGPASSWORD=postgres psql -h db -U app", "postgres"),
    ("docker run -e POSTGRES_PASSWORD=mysecretpassword postgres", "mysecretpassword"),
    ("then `export API_TOKEN=abcdefgh` and rerun", "abcdefgh"),
    ('psql "host=db user=app password=sunshine dbname=x"', "sunshine"),
    # A copula then a colon; a password's short name; a login's address before the colon.
    ("the password is: Hunter2x!", "Hunter2x!"),
    ("the admin password was: sunshine", "sunshine"),
    ("db pw: sunshine", "sunshine"),
    ("Password for admin@example.com: Hunter2x!", "Hunter2x!"),
    # Not a YAML tag, not a GPG key's id: no operand after it, no GPG word on its line.
    ("password: !Hunter2x", "!Hunter2x"),
    ("api_key = 8E1F899571345D06", "8E1F899571345D06"),
]

FALSE_POSITIVES = [
    "az deployment group create -g rg -p @params2.json",
    "das Passwort ist falsch, bitte neu setzen",
    "la contraseña es incorrecta",
    "密码错误 (error 401)",
    "Passwort: ${PW}",
    'variable "region" {\n  default = "eu-west-1"\n}',
    "<token>{{ .Values.token }}</token>",
    "<passwordPolicy>strict</passwordPolicy>",
    '<add key="Timeout" value="30s" />',
    'gh secret set NPM_TOKEN --body "$NPM_TOKEN"',
    'ssh-keygen -t ed25519 -N "" -f key',
    "net user deploy /add",
    "the password is read-from-env",
    "echo $REGISTRY_TOKEN | docker login ghcr.io --password-stdin",
    "the pw config is chromium",
    "auth: 8f14e45fceea167a5a36dedd4ea2543f1234abcd",
    "fixed in auth: e73d511 flux: the replaced file is watched",
    "token: 8f14e45fceea167a5a36dedd4ea2543f1234abcd (the commit that broke it)",
    "the secret hash is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "secret sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok",
    '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="',
    "image@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "secret_arn = arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    "the secret arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db/password-Xy12Ab is read",
    "arn:aws:iam::123456789012:role/TokenExchangeRole",
    "session 123e4567-e89b-12d3-a456-426614174000 started",
    "request_id: 123e4567-e89b-12d3-a456-426614174000",
    "ssh -i ~/.ssh/id_ed25519 deploy@host",
    "the private key is at ~/.ssh/id_ed25519",
    "token file: secrets/token.txt",
    "password_file = /run/secrets/db_password",
    "--token-file secrets/token.txt",
    "img src=data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "the token is read from GITHUB_TOKEN",
    "password reset flow: the user gets a token by mail",
    "the password is stored in vault",
    "use **argon2id** as the password hash",
    "use bcrypt as the password hash",
    # Prose about a password, not one (secretwords' rule for one dictionary word).
    "password is required",
    "the password is wrong!",
    "the token is invalid!",
    "the password is hashed with bcrypt",
    "the password is optional",
    "the password is case-sensitive",
    "the password is too short",
    "the password is incorrect",
    "the password is never logged",
    "the password is unchanged.",
    "password => bcrypt",
    "is the password sunshine?",
    "the password \"field\" is hidden",
    # Questions whose answer is no secret.
    "What's the password? I don't know.",
    "the admin password? it's stored in Vault",
    "the admin password? It's in 1Password.",
    "What's the password? 1Password has it",
    "the db password? ask ops",
    "Which password? The staging one.",
    "Did you change the password? yes, twice.",
    # Environment assignments that are no secret's value, code's keyword arguments.
    "AUTH_PROVIDER=github npm start",
    "TOKEN_TYPE=bearer",
    "API_KEY=$API_KEY node app.js",
    "DB_PASSWORD=db_password",
    "TOKENIZERS_PARALLELISM=false python train.py",
    "conn = psycopg2.connect(host=h, user=u, password=pw)",
    "host=db user=app password=password dbname=x",
    "the password is: stored in vault",
    # A YAML tag before its operand, a GPG key's id, a sentence after a name and a colon.
    "password: !vault |",
    "  db_password: !Ref DbPassword",
    "git config user.signingkey 8E1F899571345D06",
    'print("PASS: Secrets were redacted")',
    "com.apple.NetAuthSysAgent: Block all connections",
    "tokens: 4096",
    "git log auth: a1b2c3d fix token refresh",
    "mysql -u root -p shop < dump.sql",
    "docker run -u 1000:1000 -p 8080:80 nginx",
    "ssh -p 2222 user@host",
    "the password must be at least 12 characters",
    "token expired at 2026-01-02T10:00:00Z",
    "Password: ********",
    "https://user@github.com/org/repo.git",
    "the secret is to cache the result",
    "secret: the cache layer",
    "docker login --password-stdin -u deploy registry.example.com",
    "kubectl create secret generic db-creds --from-file=./password.txt",
    "docker run -p 8080:80 -v ./data:/data nginx",
    "zip -r out.zip src && unzip -l out.zip",
    "the password hash is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "mysql -u root -p shop",
    '{\\"password_file\\": \\"/run/secrets/db\\", \\"token\\": \\"required\\"}',
    'label: "Password", placeholder: "<your password>"',
    "Files with Secrets:  ~150+ (in chat logs)",
    # Windows paths: a drive letter is no user, a backslash path is no password.
    "cygpath -u 'c:\\users\\mischa'",
    'cygpath -u "C:\\Users\\Mischa\\Documents"',
    "cygpath -u c:/users/mischa2",
    "curl --user D:\\Work\\Repo2 -o out",
    "scp --private-key C:\\Users\\me\\.ssh\\id_rsa2 host:",
    "tool --password-file 'C:\\Users\\me\\pw2.txt'",
    "password file: C:\\secrets\\Pw2024.txt",
    "mysql -u root -p C:\\dumps\\db1.sql",
    "copy \\\\srv01\\Share$\\Build7 .",
    "--auth=.\\conf\\Auth2.json",
    "token file: secrets\\token2.txt",
    # Code, not secrets: a variable named a secret, a setting's reference.
    "self._password = password",
    "self.api_key = api_key",
    "api_key = settings.OPENAI_API_KEY",
    # Near the new rules: the .pgpass format, timestamps, MAC addresses, mail addresses, logins.
    "host:port:db:user:password is the .pgpass format",
    "localhost:5432:*:postgres:*",
    "2024-01-02 10:00:00:123 server started",
    "00:11:22:33:44:55 is the MAC",
    "scp build.tar root@10.0.0.5:/opt/app",
    "mailto:jdoe2@example.com",
    "git clone git@github.com:org/repo.git",
    "log in with admin / the usual password",
    "sign in with google/OAuth2",
    "user settings / Profile2024 page",
    "user admin, pass the flag --verbose",
    "echo $SECRET | base64 -d",
    'echo "${{ secrets.DEPLOY_KEY }}" > key',
    "Cookie: theme=dark; lang=en",
    "--secret-string file://secret.json",
    "security find-generic-password -s svc -w",
    "psk is the pre-shared key",
    '"Cryptography_HAS_PSK_TLSv1_3": cryptography_has_psk_tlsv13,',
    "headers=None, token_placement=AUTH_HEADER, ext=None",
    "'Set-Cookie: number=7\\r\\nSet-Cookie: string=seven'",
    "sign in with GitHub / Google2",
    "requirepass is commented out in redis.conf",
    "IDENTIFIED BY password is deprecated in MySQL 8",
    "sqlplus / as sysdba",
    "set -x PATH $HOME/bin $PATH",
    "awk '{print $1$2$3$4$5}' file",
    'keywords = ["X-Auth-Key", "X-Auth-Email"]',
    'MovedAttribute("HTTPPasswordMgr", "urllib2", "urllib.request"),',
    'algorithm = challenge.get("pw-algorithm", "SHA-1")',
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bob@host",
    "ghcr.io/org/img:v1.2@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    # Round four's look-alikes: code, paths, choices, counts, other commands' --value.
    "name = s.strip().lower()",
    "x = s.AbcdefghijklmnopqrstuvwX",
    "token = s.accessTokenFromServerXyz",
    "vault login -method=github",
    "vault login -method=userpass username=bob",
    "cd src/app && log in as yourself",
    "log in via src/auth/login.py",
    "the login flow lives in api/v1beta1 and web/app2",
    "user/password auth is off; sign in with SSO",
    "- Login screen / unlock? Login screen/unlock? Log in/out!",
    "git push origin/main after login",
    "logged in for 1/2 of the runs, 16/9 screens",
    "login page at https://example.com/admin/Admin123",
    "aws ssm put-parameter --name /app/replicas --value 3 --type String",
    "aws ssm put-parameter --name /app/ami --value ami-0abc123def9 --type String",
    "kubectl scale deploy/web --replicas 3; mytool --value 3 --value Kq7vLm2xZp9w",
    "aws ssm get-parameter --name /prod/db/password --with-decryption",
    "echo $SUDO_PASSWORD | sudo -S apt update",
    "sudo -S <<< \"$SUDO_PASSWORD\" apt upgrade",
    "mosquitto_sub -h broker -p 1883 -P $MQTT_PASSWORD -t sensors/#",
    "[Environment]::SetEnvironmentVariable('DB_PASS', $null, 'User')",
    "echo 'deb http://deb.example.org stable main' | sudo tee /etc/apt/sources.list.d/x.list",
    "| Model | Tokens used | Token usage |\n|---|---|---|\n| opus-4 | 45.2k | 12k in, 3k out |",
    "| Service | API key | Status |\n|---|---|---|\n| stripe | (hidden) | set |\n| db | `$DB_KEY` | ok |",
    "| password |\n|---|\n| must be 12 characters |\n\nafter | the table | x9Y8z7W6v5 |",
    "the network key is stored in NetworkManager",
    "Use WPA2 keys for every access point; the network is down, key rotation pending",
    "Which password hashing? — chose: argon2id; not chosen: bcrypt",
    "Which passcode length? — chose: 6-digit",
    "Which token should we use? — chose: GITHUB_TOKEN; not chosen: a PAT",
    "Where should the API key be stored? — chose: Keychain (macOS); not chosen: .env file",
    # Round five's look-alikes: hardware pins, versions, codes of other kinds, a label whose
    # next line is code, a mapping's next key or a sentence; a header word after Authorization.
    "connect GPIO pin 17 to the LED, pin 4 to ground",
    "pin numpy to 1.26.4 and pin the image to 2024.11",
    "the exit code is 1337 and the error code: 4012",
    "backup codes are stored in 1Password, print them",
    "the seed phrase is never stored on the server",
    "Remove the secret:\n```python\nimport os\n```",
    "detect-secrets:\n    name: scan the repo",
    "PasswordRequired : True\r\nPasswordLastSet  : \r\nPasswordExpires  : \r\n",
    "The token is:\n\nnot set yet, see the docs",
    "Authorization: required for every admin endpoint",
    "la contraseña de la base de datos es incorrecta",
    "curl http://localhost:8080/users/@me and https://example.com:443/a/b@c",
    "Password ⇒ see the vault; I typed it into the password field",
    "env:\n  - name: LOG_LEVEL\n    value: debug2x\n  - name: DB_PASSWORD\n    valueFrom: {}",
    '{"name": "API_KEY", "value": "${{ secrets.API_KEY }}"}',
    "| Name | Value |\n|---|---|\n| Max tokens | 4096 |\n| API key | required |",
    "cd /p:/x && robocopy C:\\src D:\\dst /pass:C:\\cfg\\pw.txt",
    "https://cache.example.com/v1/get?key=user_profile_settings&ttl=60",
    # Round six's look-alikes: a word after a password word, a quoted message, keys of code or
    # data and a key's fingerprint, a sentence under a label, an answer to another prompt, a
    # placeholder in a query before the next parameter.
    "click the password Reset! button",
    "passphrase 'Enter your passphrase'",
    "the password field 'Confirm your password' must match",
    "sort key 3f9a8b7c6d5e4f30a1b2c3d4e5f60718 is the partition",
    "cache key a1b2c3d4e5f60718293a4b5c6d7e8f90",
    "primary key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "gpg: using RSA key 5009EAD288A30DFD30AA51B32F74C4BE953C9029",
    "The passphrase is:\n  not set yet, see the docs",
    "Password:\n  stored in the vault under prod",
    'expect "Are you sure (yes/no)?"\nsend "yes\\r"',
    'expect "login:"\nsend "admin\\r"',
    'expect "Password:"\nsend "$pass\\r"',
    "https://x.com/cb?token=$TOKEN&user=alice",
    "the passphrase is: use a long one",
    "I'll send 'hello world again' to the chat",
    "pages 12/34, 56/78; read / write, yes / no",
    "Compare v1 / v2.1, main / dev2, src / main.py, docs / index2.md",
    "[auth]\nmethod = oauth2\nenabled = true\nclient_id = abc123def",
    '[credential "https://github.com"]\n  helper = !gh auth git-credential',
    "secrets:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  inherit: true",
    "auth:\n  type: bearer\n  token_file: ./tok.txt",
    ("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
    "-----END CERTIFICATE-----"),
    # Round seven's look-alikes: placeholders and masks of a vendor's shape, hashes said to be
    # hashes after a bare key, a Digest header without its response, a user's name in a URL,
    # a template's slot for a password, a port after snowsql's -p, algorithms and bands in a
    # value's place.
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
    "curl -X POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "export OPENAI_API_KEY=sk-proj-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "API_KEY=00000000-0000-0000-0000-000000000000",
    "ANTHROPIC_API_KEY=sk-ant-api03-...",
    "the key looked like sk-ant-***REDACTED***wxyz in the log",
    "the hash ring key 5d41402abc4b2a76b9719d911017c592 maps to node 3",
    "cache entry key 9e107d9d372bb6826bd81d3542a419d6 is the md5 of the url",
    "the key d41d8cd98f00b204e9800998ecf8427e is the content hash of the empty file",
    'Authorization: Digest username="alice", realm="r", nonce="abc"',
    "ssh://git@github.com/acme/api.git and https://deploy-bot-2024@git.example.com/x.git",
    'conn = f"Server=db;Uid=sa;Pwd={0};"',
    "snowsql -a acct -u me -p 443",
    "docker run -p 8080:80 nginx",
    "use argon2id for the password hashing; Argon2id is the password hash we use",
    "use sha256 for the password",
    "WiFi: 2.4GHz / 5GHz both work",
    "gpt-4o is the token counter; HS256 is the token algorithm",
    # What a name says about a secret, not the secret: a date, a rule; a key's id after a flag
    # that lists keys.
    "PasswordLastSet  : 11/15/2025 10:24:36 AM\nPasswordExpires  :",
    "password_min_length: 12x, TOKEN_EXPIRY=3600s, SECRET_NAME=prod-db-pw2",
    "gpg --list-secret-keys 8E1F899571345D06 2>&1 | head -5",
    "remote: https://github.com/acme/api/security/secret-scanning/unblock-secret/383Dgj4xs8LF4Uo",
]


@pytest.mark.parametrize("text", [
    "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyZABCD\nFalcon",
    "OPENAI_API_KEY=" + "sk-proj-abcdefghij0123456789KLMNOP\nFalcon2 team",
    "https://x.example/cb?token=" + "ghp_1234567890abcdefghijklmnopqrstuvwxyZABCD&user=alice",
    "https://x.example/login?user=bob&password=Hunter2xyz&next=home",
])
def test_the_words_after_a_secret_stay(text: str) -> None:
    """A secret's redaction ends with the secret: a name on the next line is no wrapped key's
    tail, a URL query's next parameter is no part of the value."""
    out = redact.redact(text)
    tail = re.split(r"[\n&]", text)[-1]
    assert "‹redacted:" in out and out.endswith(tail), out


@pytest.mark.parametrize(("text", "secret"), ATTACKS)
def test_every_attack_is_redacted_as_a_whole_token(text: str, secret: str) -> None:
    out = redact.redact(text)
    assert secret not in out and "‹redacted:" in out
    rest = _MARK.sub("", out)
    assert secret[-4:] not in rest  # nothing of its end left after the mark


@pytest.mark.parametrize(("text", "redacted"), [
    ("DefaultEndpointsProtocol=https;AccountKey=" + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo==;"
     "EndpointSuffix=core.windows.net",
     "DefaultEndpointsProtocol=https;AccountKey=‹redacted:secret›;EndpointSuffix=core.windows.net"),
    ("git clone https://x-access-token:" + "abcDEF123ghiJKL456@github.com/org/repo",
     "git clone https://x-access-token:‹redacted:password›@github.com/org/repo"),
])
def test_a_connection_strings_next_pair_and_a_urls_host_stay(text: str, redacted: str) -> None:
    assert redact.redact(text) == redacted


@pytest.mark.parametrize(("text", "secret"), ATTACKS)
def test_redacting_twice_changes_nothing_more(text: str, secret: str) -> None:
    """A note is redacted again when it is written again: a mark is never read as a value
    (``https://‹redacted:token›@host`` is no ``user:password@``)."""
    once = redact.redact(text)
    assert redact.redact(once) == once


def test_beside_an_aws_key_id_a_commit_hash_is_kept() -> None:
    out = redact.redact("AKIA" + "IOSFODNN7EXAMPL6 rotated in 8f14e45fceea167a5a36dedd4ea2543f1234abcd")
    assert out == "‹redacted:aws› rotated in 8f14e45fceea167a5a36dedd4ea2543f1234abcd"


@pytest.mark.parametrize("text", FALSE_POSITIVES)
def test_every_false_positive_is_kept_byte_for_byte(text: str) -> None:
    assert redact.redact(text) == text


def _shaped(template: str) -> re.Pattern[str]:
    """``template`` with one mark where its value was: the whole value went, nothing else."""
    return re.compile(re.escape(template).replace(r"\{\}", "‹redacted:[a-z-]+›"))


_ALNUM = string.ascii_letters + string.digits


def _no_placeholder(value: str) -> bool:
    """Not a placeholder by secretspan's reading (``0000000000000000``, ``xxxx…``)."""
    return not secretspan.placeholder(value, "token")
_HEX = "0123456789abcdef"


@settings(max_examples=60, deadline=None)
@given(prefix=st.sampled_from(["ghp_", "npm_", "hf_", "glpat-", "sk_live_", "whsec_", "xoxb-1-"]),
       body=st.text(_ALNUM, min_size=36, max_size=70).filter(_no_placeholder),
       around=st.sampled_from(["{}", "token {} here", "`{}`", "KEY={}.", "'{}'"]))
def test_a_vendor_token_of_any_length_goes_whole(prefix: str, body: str, around: str) -> None:
    token = prefix + body
    out = redact.redact(around.format(token))
    assert _shaped(around).fullmatch(out), out


def _shaped_or_emphasised(template: str) -> re.Pattern[str]:
    """_shaped, the mark maybe between two equal runs of ``*``: a value drawn as ``*x…*`` is
    Markdown's emphasis around the value, which stays around its mark."""
    mark = r"(\*+)?‹redacted:[a-z-]+›(?(1)\1)"
    return re.compile(re.escape(template).replace(r"\{\}", mark))


@settings(max_examples=60, deadline=None)
@given(password=st.text(_ALNUM + "!#%&*+", min_size=10, max_size=30).filter(
    lambda p: any(c.isdigit() for c in p) and any(c.isalpha() for c in p) and _no_placeholder(p)),
       template=st.sampled_from([
           "the db password is {}", "mysql -uroot -p{} -h db", "--password={}", "--password {}",
           "curl -u me:{} https://x.example", "redis://:{}@cache:6379", "password: {}",
           "set the api key to {}", "Authorization: Bearer {}"]))
@example(password="%0000000A%", template="the db password is {}")  # not a %WINDOWS_VARIABLE%
@example(password="**0000000A", template="set the api key to {}")  # an unclosed bold goes too
@example(password="*Ab1!cd2*ef", template="password: {}")
@example(password="**Ab1!cd2ef**", template="the db password is {}")
def test_a_password_in_context_goes_whole(password: str, template: str) -> None:
    out = redact.redact(template.format(password))
    assert _shaped_or_emphasised(template).fullmatch(out), out
    assert out.count("*") % 2 == 0, out  # no half of a bold or an italic left


@settings(max_examples=60, deadline=None)
@given(sha=st.text(_HEX, min_size=40, max_size=40), digest=st.text(_HEX, min_size=64, max_size=64),
       word=st.sampled_from(["auth", "token", "secret", "commit", "fix"]))
def test_shas_and_digests_are_kept(sha: str, digest: str, word: str) -> None:
    for text in (f"{word}: {sha}", f"{word} {sha[:7]} merged", f"img@sha256:{digest}",
                 f"the {word} hash is {digest}"):
        assert redact.redact(text) == text


@pytest.mark.parametrize(("text", "redacted"), [
    ("the password is **hunter2x9**", "the password is **‹redacted:password›**"),
    ("set the api key to **abc12345678**", "set the api key to **‹redacted:secret›**"),
    ("**Zq7-hunter2-Lk** is the admin password", "**‹redacted:password›** is the admin password"),
    ("use __Zq7-hunter2-Lk__ as the admin password", "use __‹redacted:password›__ as the admin password"),
    # unclosed: the run goes with the value
    ("set the api key to **Xy9abc123def", "set the api key to ‹redacted:secret›"),
    ("the db password is ***Kx8!mq2Lp", "the db password is ‹redacted:password›"),
    ("**Note:** the password is **Hunter2x9", "**Note:** the password is ‹redacted:password›"),
    # paired elsewhere in its line: it stays
    ("**Password: hunter2x9**", "**Password: ‹redacted:password›**"),
    ("**Password:** hunter2x9", "**Password:** ‹redacted:password›"),
])
def test_a_value_in_bold_goes_and_the_bold_stays_balanced(text: str, redacted: str) -> None:
    """Issue 28, round eight: a redaction leaves no half of a ``**`` pair in the note."""
    assert redact.redact(text) == redacted
