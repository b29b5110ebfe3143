//! The daemon's own config (`bansha run --config daemon.toml`): the forum, credentials, SMTP,
//! the judge's addresses, the games to watch and the polling cadence. TOML, unknown keys are
//! errors; secrets come from a file (refused when others can read it) or an environment
//! variable, never inline.

use crate::config::{self, ConfigError, GameConfig};
use crate::sources::Sources;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    state_dir: PathBuf,
    forum: ForumSettings,
    smtp: SmtpFile,
    judge: JudgeSettings,
    #[serde(default)]
    poll: PollSettings,
    #[serde(default)]
    status: StatusSettings,
    /// The judge's QQ through a OneBot 11 bot (issue 35); none: mail only.
    qq: Option<QqFile>,
    games: Vec<GameRef>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct QqFile {
    api: String,
    access_token_file: Option<PathBuf>,
    access_token_env: Option<String>,
    judges: Vec<u64>,
    group: Option<u64>,
    send: Option<Vec<String>>,
    event_secret_file: Option<PathBuf>,
    event_secret_env: Option<String>,
    #[serde(default)]
    replies: Vec<String>,
    #[serde(default = "qq_timeout")]
    timeout_secs: u64,
    #[serde(default = "qq_max_chars")]
    max_chars: usize,
    #[serde(default = "qq_alert_after")]
    alert_after: u32,
}

fn qq_timeout() -> u64 {
    10
}
fn qq_max_chars() -> usize {
    1500
}
fn qq_alert_after() -> u32 {
    3
}

/// `[qq]`, loaded: where the OneBot 11 HTTP API is, who gets what, the event secret.
#[derive(Debug, Clone)]
pub struct QqSettings {
    /// The bot's HTTP API base, e.g. "http://127.0.0.1:3000/" (`send_private_msg` is under it).
    pub api: String,
    /// `Authorization: Bearer …` for the API (the bot's `access_token`).
    pub access_token: Option<Secret>,
    /// The judges' QQ numbers: every kind in `send` goes to each, privately.
    pub judges: Vec<u64>,
    /// A group that gets only what the rules publish: the final tally's BBCode as text.
    pub group: Option<u64>,
    pub send: Vec<crate::qq::Kind>,
    /// The bot's `secret`: each event POST must carry its `X-Signature`.
    pub event_secret: Option<Secret>,
    /// The replies to players that go out without the judge's click.
    pub replies: Vec<crate::qq::ReplyKind>,
    pub timeout_secs: u64,
    /// The longest message, in characters; longer texts are split at line breaks.
    pub max_chars: usize,
    /// Failures in a row before the judge is mailed (once per streak).
    pub alert_after: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForumSettings {
    /// The forum's root, e.g. "https://bbs.example.com/" (where forum.php lives).
    pub base_url: String,
    /// `api` (the mobile API: exact times, any page size) or `desktop` (forum.php pages).
    #[serde(default)]
    pub source: Source,
    /// Mobile API version: 1 keeps edit notices (v4 drops them).
    #[serde(default = "api_version")]
    pub api_version: u32,
    /// Posts per API page.
    #[serde(default = "ppp")]
    pub posts_per_page: u32,
    /// Posts per API page of a full scan (the whole thread read again: at the start, the lock,
    /// the close and after it). Discuz's API takes any size, so a 5,000-post thread is 10
    /// requests instead of 100 — at the default gap, 10 s rather than 100 between the close
    /// and the final. The desktop source reads the forum's own page size.
    #[serde(default = "full_scan_ppp")]
    pub full_scan_posts_per_page: u32,
    /// Minimum gap between two requests to the forum, in milliseconds.
    #[serde(default = "min_gap_ms")]
    pub min_gap_ms: u64,
    /// Per-request timeout, in seconds.
    #[serde(default = "timeout_secs")]
    pub timeout_secs: u64,
    /// Retries on timeouts and 5xx answers (with backoff).
    #[serde(default = "retries")]
    pub retries: u32,
    #[serde(default = "user_agent")]
    pub user_agent: String,
    /// Log in as this user (the judge's account); without it bansha reads as a guest.
    pub login: Option<LoginFile>,
    /// Posting the tally to the vote thread as the judge's reply: `off` (never), or `button`
    /// (a button on the dashboard; nothing is posted unless the judge presses it).
    #[serde(default)]
    pub post_tally: PostTally,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum PostTally {
    #[default]
    Off,
    Button,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    #[default]
    Api,
    Desktop,
}

fn api_version() -> u32 {
    1
}
fn ppp() -> u32 {
    50
}
fn full_scan_ppp() -> u32 {
    500
}
fn min_gap_ms() -> u64 {
    1000
}
fn timeout_secs() -> u64 {
    20
}
fn retries() -> u32 {
    3
}
fn user_agent() -> String {
    format!(
        "bansha/{} (judge's vote counter)",
        env!("CARGO_PKG_VERSION")
    )
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginFile {
    pub username: String,
    pub password_file: Option<PathBuf>,
    pub password_env: Option<String>,
    /// Cookies pasted from the browser instead of a password: "auth=…; saltkey=…" (the names
    /// without the forum's cookie prefix are fine; the prefix is taken from the forum).
    pub cookies_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SmtpFile {
    #[serde(default)]
    host: String,
    /// Write each mail as an .eml file into this folder instead of sending it (a trial run, the
    /// demo).
    folder: Option<PathBuf>,
    port: Option<u16>,
    #[serde(default)]
    security: Security,
    username: Option<String>,
    password_file: Option<PathBuf>,
    password_env: Option<String>,
    from: String,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Security {
    #[default]
    Starttls,
    Tls,
    /// No encryption: only for a relay on this machine.
    Plain,
}

#[derive(Debug, Clone)]
pub struct SmtpSettings {
    pub host: String,
    /// Deliver into this folder (lettre's file transport) instead of an SMTP server.
    pub folder: Option<PathBuf>,
    pub port: u16,
    pub security: Security,
    pub username: Option<String>,
    pub password: Option<Secret>,
    pub from: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeSettings {
    /// The judge's mail addresses.
    pub to: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PollSettings {
    /// Seconds between polls.
    pub interval_secs: u64,
    /// Seconds between polls within `near_close_minutes` of a close.
    pub near_close_secs: u64,
    pub near_close_minutes: u64,
    /// An interim tally mail at most this often (hours; 0: only when the leader changes).
    pub interim_every_hours: u64,
    /// Mail the judge when fetching has failed for this long (minutes).
    pub fetch_failure_alert_minutes: u64,
}

impl Default for PollSettings {
    fn default() -> Self {
        PollSettings {
            interval_secs: 300,
            near_close_secs: 60,
            near_close_minutes: 90,
            interim_every_hours: 6,
            fetch_failure_alert_minutes: 30,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatusSettings {
    /// Where the dashboard, `bansha status` and `bansha tally --live` reach the daemon.
    /// Loopback by default; any other address needs a token.
    pub listen: String,
    /// The dashboard's token, read from this file (chmod 600) or environment variable; asked
    /// for as `?token=…` or `Authorization: Bearer …`. Required unless `listen` is loopback.
    pub token_file: Option<PathBuf>,
    pub token_env: Option<String>,
    /// Other host names the dashboard is opened by (besides loopback and the `listen` address),
    /// e.g. the machine's name on the judge's network. Any other Host is refused.
    pub hosts: Vec<String>,
}

impl Default for StatusSettings {
    fn default() -> Self {
        StatusSettings {
            listen: "127.0.0.1:8719".into(),
            token_file: None,
            token_env: None,
            hosts: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameRef {
    /// A game config, relative to this file.
    config: PathBuf,
}

/// A secret that never prints.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Debug, Clone)]
pub struct Login {
    pub username: String,
    pub password: Option<Secret>,
    pub cookies: Option<Secret>,
}

/// Where the record lives: `state_dir` as written when absolute; a relative one under the
/// directory systemd made for the service (`StateDirectory=` sets `$STATE_DIRECTORY`, the only
/// place the unit may write), else beside the config.
fn state_dir(base: &std::path::Path, dir: &std::path::Path, src: &dyn Sources) -> PathBuf {
    if dir.is_absolute() {
        return dir.to_path_buf();
    }
    match src.env("STATE_DIRECTORY") {
        // Several directories are separated by ':'; the unit names one.
        Some(sd) if !sd.is_empty() => {
            PathBuf::from(sd.split(':').next().unwrap_or_default()).join(dir)
        }
        _ => base.join(dir),
    }
}

/// The loaded daemon config.
#[derive(Debug, Clone)]
pub struct Settings {
    pub path: PathBuf,
    pub state_dir: PathBuf,
    pub forum: ForumSettings,
    pub login: Option<Login>,
    pub smtp: SmtpSettings,
    pub judge: JudgeSettings,
    pub poll: PollSettings,
    pub status: StatusSettings,
    /// The dashboard's token (`status.token_file` / `status.token_env`).
    pub status_token: Option<Secret>,
    pub qq: Option<QqSettings>,
    pub games: Vec<GameConfig>,
}

/// Read a secret from a file (refused when group or others may read it) or an environment
/// variable.
fn secret(
    src: &dyn Sources,
    file: &Path,
    key: &str,
    from_file: &Option<PathBuf>,
    from_env: &Option<String>,
    base: &Path,
) -> Result<Option<Secret>, ConfigError> {
    let which = if from_file.is_some() { "file" } else { "env" };
    let err = |message: String| ConfigError {
        file: file.display().to_string(),
        line: None,
        key: format!("{key}_{which}"),
        message,
    };
    if let Some(p) = from_file {
        // "credential:NAME": a systemd credential (LoadCredential=NAME:…), which the service's
        // dynamic user can read where a root-owned 0600 file is closed to it.
        let p = match p.to_str().and_then(|p| p.strip_prefix("credential:")) {
            Some(name) => match src.env("CREDENTIALS_DIRECTORY") {
                Some(dir) => Path::new(&dir).join(name),
                None => {
                    return Err(err(format!(
                        "credential:{name} 是 systemd 的凭据（LoadCredential），只在服务里有；在命令行检查时请设置 CREDENTIALS_DIRECTORY=存放凭据文件的目录"
                    )))
                }
            },
            None => base.join(p),
        };
        if let Some(mode) = src
            .mode(&p)
            .map_err(|e| err(format!("无法读取密码文件 {}：{e}", p.display())))?
        {
            if mode & 0o077 != 0 {
                return Err(err(format!(
                    "密码文件 {} 的权限是 {:o}，其他用户可以读取；请执行 chmod 600 {}",
                    p.display(),
                    mode & 0o777,
                    p.display()
                )));
            }
        }
        let text = src
            .read(&p)
            .map_err(|e| err(format!("无法读取密码文件 {}：{e}", p.display())))?;
        return Ok(Some(Secret(
            text.trim_end_matches(['\r', '\n']).to_string(),
        )));
    }
    if let Some(var) = from_env {
        let v = src
            .env(var)
            .ok_or_else(|| err(format!("环境变量 {var} 没有设置")))?;
        return Ok(Some(Secret(v)));
    }
    Ok(None)
}

/// Load and validate the daemon config and every game it names, read through `src`
/// (`io::files::load_settings` reads the disk and the environment).
pub fn load_from(path: &Path, src: &dyn Sources) -> Result<Settings, ConfigError> {
    let file = path.display().to_string();
    let text = src.read(path).map_err(|e| ConfigError {
        file: file.clone(),
        line: None,
        key: String::new(),
        message: format!("无法读取：{e}"),
    })?;
    let s: SettingsFile =
        toml::from_str(&text).map_err(|e| crate::config::toml_error(&file, &text, &e))?;
    let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let at = |key: &[&str], message: String| at_key(&file, &text, key, message);
    check_values(&s, &at)?;
    let login = read_login(&s, src, path, &base, &at)?;
    if s.forum.post_tally != PostTally::Off && login.is_none() {
        return Err(at(
            &["forum", "post_tally"],
            "发统计到投票帖要用法官的账号：请配置 [forum.login]，或把 post_tally 设为 \"off\""
                .into(),
        ));
    }
    let smtp_password = secret(
        src,
        path,
        "smtp.password",
        &s.smtp.password_file,
        &s.smtp.password_env,
        &base,
    )?;
    let status_token = secret(
        src,
        path,
        "status.token",
        &s.status.token_file,
        &s.status.token_env,
        &base,
    )?;
    check_listen(&s.status.listen, status_token.is_some(), &at)?;
    let qq = match &s.qq {
        Some(q) => Some(read_qq(q, &s.status.listen, src, path, &base, &at)?),
        None => None,
    };
    let games = load_games(&s, src, &base, &at)?;
    let smtp = SmtpSettings {
        folder: s.smtp.folder.as_ref().map(|f| base.join(f)),
        port: s.smtp.port.unwrap_or(match s.smtp.security {
            Security::Starttls => 587,
            Security::Tls => 465,
            Security::Plain => 25,
        }),
        host: s.smtp.host,
        security: s.smtp.security,
        username: s.smtp.username,
        password: smtp_password,
        from: s.smtp.from,
    };
    Ok(Settings {
        path: path.to_path_buf(),
        state_dir: state_dir(&base, &s.state_dir, src),
        forum: s.forum,
        login,
        smtp,
        judge: s.judge,
        poll: s.poll,
        status: s.status,
        status_token,
        qq,
        games,
    })
}

/// `[qq]`: the API's address, the kinds named right, the secrets read; an event endpoint off
/// loopback needs the event secret (the dashboard's token guards everything else there).
fn read_qq(
    q: &QqFile,
    listen: &str,
    src: &dyn Sources,
    path: &Path,
    base: &Path,
    at: &At,
) -> Result<QqSettings, ConfigError> {
    use crate::qq::{Kind, ReplyKind};
    if !(q.api.starts_with("http://") || q.api.starts_with("https://")) {
        return Err(at(
            &["qq", "api"],
            "应以 http:// 或 https:// 开头（OneBot 的 HTTP 接口地址，如 http://127.0.0.1:3000/）"
                .into(),
        ));
    }
    if q.judges.is_empty() {
        return Err(at(&["qq", "judges"], "需要至少一个法官的 QQ 号".into()));
    }
    let names = |all: &[&str]| all.join("、");
    let send = match &q.send {
        None => Kind::ALL.to_vec(),
        Some(v) => v
            .iter()
            .map(|k| {
                Kind::parse(k).ok_or_else(|| {
                    at(
                        &["qq", "send"],
                        format!(
                            "没有 {k} 这种消息；可以是 {}",
                            names(&Kind::ALL.map(Kind::name))
                        ),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let replies = q
        .replies
        .iter()
        .map(|k| {
            ReplyKind::parse(k).ok_or_else(|| {
                at(
                    &["qq", "replies"],
                    format!(
                        "没有 {k} 这种回复；可以是 {}",
                        names(&ReplyKind::ALL.map(ReplyKind::name))
                    ),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    if !(100..=4500).contains(&q.max_chars) {
        return Err(at(
            &["qq", "max_chars"],
            format!("{} 不合适：一条 QQ 消息写 100 到 4500 个字", q.max_chars),
        ));
    }
    if !(1..=120).contains(&q.timeout_secs) {
        return Err(at(&["qq", "timeout_secs"], "要在 1 到 120 秒之间".into()));
    }
    let token = secret(
        src,
        path,
        "qq.access_token",
        &q.access_token_file,
        &q.access_token_env,
        base,
    )?;
    let event_secret = secret(
        src,
        path,
        "qq.event_secret",
        &q.event_secret_file,
        &q.event_secret_env,
        base,
    )?;
    let loopback = listen
        .parse::<std::net::SocketAddr>()
        .is_ok_and(|a| a.ip().is_loopback());
    if event_secret.is_none() && !loopback {
        return Err(at(
            &["qq"],
            format!("仪表盘监听 {listen}（不是本机回环地址）：接收 QQ 消息的 /onebot 需要签名密钥，请设置 event_secret_file 或 event_secret_env（与机器人的 secret 相同）"),
        ));
    }
    Ok(QqSettings {
        api: q.api.clone(),
        access_token: token,
        judges: q.judges.clone(),
        group: q.group,
        send,
        event_secret,
        replies,
        timeout_secs: q.timeout_secs,
        max_chars: q.max_chars,
        alert_after: q.alert_after.max(1),
    })
}

/// An error at `key` of the daemon config; a missing key points at the table it belongs in.
fn at_key(file: &str, text: &str, key: &[&str], message: String) -> ConfigError {
    ConfigError {
        file: file.to_string(),
        line: (1..=key.len())
            .rev()
            .find_map(|n| config::locate(text, &key[..n])),
        key: key.join("."),
        message,
    }
}

type At<'a> = dyn Fn(&[&str], String) -> ConfigError + 'a;

/// The values that must make sense on their own: the forum's address, the judge's mail, the
/// SMTP relay (plain only on this machine), at least one game, the poll intervals.
fn check_values(s: &SettingsFile, at: &At) -> Result<(), ConfigError> {
    if !(s.forum.base_url.starts_with("http://") || s.forum.base_url.starts_with("https://")) {
        return Err(at(
            &["forum", "base_url"],
            "应以 http:// 或 https:// 开头".into(),
        ));
    }
    if s.judge.to.is_empty() || s.judge.to.iter().any(|a| !a.contains('@')) {
        return Err(at(&["judge", "to"], "需要至少一个有效的邮箱地址".into()));
    }
    if s.smtp.host.is_empty() && s.smtp.folder.is_none() {
        return Err(at(
            &["smtp"],
            "需要 host（SMTP 服务器）或 folder（把邮件写入文件夹）".into(),
        ));
    }
    if s.smtp.security == Security::Plain && s.smtp.folder.is_none() {
        let host = s.smtp.host.trim_matches(['[', ']']);
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if !loopback {
            return Err(at(
                &["smtp", "security"],
                format!(
                    "不加密的 SMTP（plain）只允许连本机的中继（127.0.0.1、::1 或 localhost），{} 不是；请用 starttls 或 tls",
                    s.smtp.host
                ),
            ));
        }
    }
    if !s.smtp.from.contains('@') {
        return Err(at(&["smtp", "from"], "发件地址无效".into()));
    }
    if s.games.is_empty() {
        return Err(at(
            &["games"],
            "没有要监视的游戏（[[games]] config = …）".into(),
        ));
    }
    if !(1..=4).contains(&s.forum.api_version) {
        return Err(at(
            &["forum", "api_version"],
            format!(
                "Discuz 手机接口的版本只有 1 到 4，不是 {}（不确定就写 4）",
                s.forum.api_version
            ),
        ));
    }
    if !(1..=1000).contains(&s.forum.posts_per_page) {
        return Err(at(
            &["forum", "posts_per_page"],
            format!(
                "每页帖数须在 1 到 1000 之间，不是 {}（论坛默认 10）",
                s.forum.posts_per_page
            ),
        ));
    }
    if !(s.forum.posts_per_page..=5000).contains(&s.forum.full_scan_posts_per_page) {
        return Err(at(
            &["forum", "full_scan_posts_per_page"],
            format!(
                "全帖重读的每页帖数须在 posts_per_page（{}）到 5000 之间，不是 {}（默认 500）",
                s.forum.posts_per_page, s.forum.full_scan_posts_per_page
            ),
        ));
    }
    if s.forum.timeout_secs == 0 {
        return Err(at(
            &["forum", "timeout_secs"],
            "超时必须大于 0 秒（例如 20）".into(),
        ));
    }
    if s.poll.interval_secs == 0 || s.poll.near_close_secs == 0 {
        return Err(at(&["poll"], "轮询间隔必须大于 0".into()));
    }
    Ok(())
}

/// `[forum.login]`: a user name with a password or cookies, read from their files or the
/// environment.
fn read_login(
    s: &SettingsFile,
    src: &dyn Sources,
    path: &Path,
    base: &Path,
    at: &At,
) -> Result<Option<Login>, ConfigError> {
    Ok(match &s.forum.login {
        None => None,
        Some(l) => {
            let password = secret(
                src,
                path,
                "forum.login.password",
                &l.password_file,
                &l.password_env,
                base,
            )?;
            let cookies = secret(
                src,
                path,
                "forum.login.cookies",
                &l.cookies_file,
                &None,
                base,
            )?;
            if password.is_none() && cookies.is_none() {
                return Err(at(
                    &["forum", "login"],
                    "需要 password_file、password_env 或 cookies_file 之一".into(),
                ));
            }
            Some(Login {
                username: l.username.clone(),
                password,
                cookies,
            })
        }
    })
}

/// `[status] listen`: an address, and off loopback only with a token (the dashboard shows roles).
fn check_listen(listen: &str, has_token: bool, at: &At) -> Result<(), ConfigError> {
    match listen.parse::<std::net::SocketAddr>() {
        Err(_) => {
            return Err(at(
                &["status", "listen"],
                format!("不是有效的地址：{}（例如 127.0.0.1:8719）", listen),
            ))
        }
        Ok(a) if !a.ip().is_loopback() && !has_token => {
            return Err(at(
                &["status", "listen"],
                format!(
                    "{} 不是本机回环地址：仪表盘会显示身份，必须设置 token_file 或 token_env",
                    listen
                ),
            ))
        }
        Ok(_) => {}
    }
    Ok(())
}

/// Every game the daemon config names, each with at least one vote thread.
fn load_games(
    s: &SettingsFile,
    src: &dyn Sources,
    base: &Path,
    at: &At,
) -> Result<Vec<GameConfig>, ConfigError> {
    let mut games: Vec<GameConfig> = Vec::new();
    for g in &s.games {
        let game = crate::game::load_from(&base.join(&g.config), src)?;
        // The name keys everything the record keeps of a game.
        if let Some(other) = games.iter().find(|o| o.name == game.name) {
            return Err(at(
                &["games"],
                format!(
                    "{} 和 {} 的游戏名都是“{}”：每局的名字必须不同（记录、邮件都按名字区分）",
                    other.path.display(),
                    game.path.display(),
                    game.name
                ),
            ));
        }
        if let Some(other) = games.iter().find(|o| o.id == game.id) {
            return Err(at(
                &["games"],
                format!(
                    "{} 和 {} 的游戏 id 都是“{}”：每局的 id 必须不同（记录、邮件都按 id 区分）",
                    other.path.display(),
                    game.path.display(),
                    game.id
                ),
            ));
        }
        // A game with a `board` finds its days there (issue 30); one without needs a day.
        if game.board.is_none() && !game.days.iter().any(|d| d.vote_thread.is_some()) {
            return Err(ConfigError {
                file: game.path.display().to_string(),
                line: None,
                key: "days".into(),
                message: "没有任何一天设置了 vote_thread（投票帖的 tid），也没有设 board（游戏版块，bansha 在那里找每天的帖子），守护进程无事可做".into(),
            });
        }
        games.push(game);
    }
    Ok(games)
}
