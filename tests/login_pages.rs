//! The login form and login answers of both captured forums.

mod common;

use bansha_parsers::login::{parse_api_login, parse_login_form, parse_login_result, LoginOutcome};

fn read(rel: &str) -> (Vec<u8>, Option<String>) {
    let p = common::fixtures().join(rel);
    (std::fs::read(&p).unwrap(), common::headers_of(&p).1)
}

#[test]
fn login_forms_give_formhash_action_and_charset() {
    let (b, ct) = read("discuz/login/desktop_login_page.html");
    let f = parse_login_form(&b, ct.as_deref()).unwrap();
    assert_eq!(f.formhash, "e14360f8");
    assert_eq!(
        f.action,
        "member.php?mod=logging&action=login&loginsubmit=yes&loginhash=LeEZE"
    );
    assert!(!f.captcha && !f.question);
    assert_eq!(f.charset, "UTF-8");

    let (b, ct) = read("discuz/login/desktop_login_float_form_inajax.xml");
    let f = parse_login_form(&b, ct.as_deref()).unwrap();
    assert!(f.action.contains("loginhash=Lxg14"));

    let (b, ct) = read("discuz-gbk/login/desktop_login_page.html");
    let f = parse_login_form(&b, ct.as_deref()).unwrap();
    assert_eq!(f.formhash, "5345d6ea");
    assert_eq!(f.charset, "GBK");

    let (b, ct) = read("discuz/login_default_captcha_on/login_page.html");
    assert!(parse_login_form(&b, ct.as_deref()).unwrap().captcha);

    let (b, ct) = read("discuz/login/mobile_v1_login_get.json");
    assert!(
        parse_login_form(&b, ct.as_deref()).is_err(),
        "API JSON has no login form"
    );
}

#[test]
fn login_answers_are_classified() {
    let cases = [
        (
            "discuz/login/desktop_login_success_inajax.xml",
            LoginOutcome::Success,
        ),
        (
            "discuz/login/desktop_quicklogin_lssubmit_success_inajax.xml",
            LoginOutcome::Success,
        ),
        (
            "discuz/login/desktop_login_fail_wrongpw_inajax.xml",
            LoginOutcome::WrongPassword {
                attempts_left: Some(4),
            },
        ),
        (
            "discuz/login/desktop_login_fail_nosuchuser_inajax.xml",
            LoginOutcome::WrongPassword {
                attempts_left: Some(3),
            },
        ),
        (
            "discuz/login/desktop_login_locked_out_after_5_failures_inajax.xml",
            LoginOutcome::LockedOut { minutes: Some(15) },
        ),
        (
            "discuz-gbk/login/desktop_login_fail_username_sent_as_utf8_inajax.xml",
            LoginOutcome::WrongPassword {
                attempts_left: Some(2),
            },
        ),
        (
            "discuz/login_default_captcha_on/login_submit_no_seccode_inajax.xml",
            LoginOutcome::Captcha,
        ),
    ];
    for (rel, want) in cases {
        let (b, ct) = read(rel);
        assert_eq!(parse_login_result(&b, ct.as_deref()), want, "{rel}");
    }
    let (b, _) = read("discuz/login/mobile_v1_login_success.json");
    assert_eq!(parse_api_login(&b), LoginOutcome::Success);
    let (b, _) = read("discuz/login/mobile_v4_login_fail_wrongpw.json");
    assert_eq!(
        parse_api_login(&b),
        LoginOutcome::WrongPassword {
            attempts_left: None
        }
    );
    let (b, _) = read("discuz/login/mobile_v4_login_locked_out.json");
    assert_eq!(
        parse_api_login(&b),
        LoginOutcome::LockedOut { minutes: None }
    );
    assert!(LoginOutcome::Captcha.zh().contains("验证码"));
}
