//! The mobile API's thread page read straight into borrowed, typed structs (serde: strings
//! without escapes are not copied, the fields bansha does not read are skipped unparsed),
//! instead of a `serde_json::Value` tree. Anything it is not sure of — an error answer, a
//! `postlist` keyed by pid, a post without a pid, a field of an unexpected type, a duplicate
//! key — returns `None`, and the page goes through `api::parse`'s `Value` path, which gives
//! the same result on every captured page (tested).

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// A JSON value as Discuz sends scalars: a string, a non-negative integer, or something else.
#[derive(Debug, Default)]
pub(crate) enum Scalar<'a> {
    #[default]
    Absent,
    Null,
    Str(Cow<'a, str>),
    U64(u64),
    /// A negative number: its text is what `serde_json` prints.
    I64(i64),
    /// A float, a bool, an object or an array.
    Other,
}

impl<'a> Scalar<'a> {
    /// As `api::num` reads a `Value`.
    pub fn num(&self) -> Option<u64> {
        match self {
            Scalar::Str(s) => s.trim().parse().ok(),
            Scalar::U64(n) => Some(*n),
            _ => None,
        }
    }

    /// As `api::string` reads a `Value`; `Err` where the typed path cannot be sure (a float).
    pub fn string(&self) -> Result<Option<String>, ()> {
        match self {
            Scalar::Str(s) => Ok(Some(s.to_string())),
            Scalar::U64(n) => Ok(Some(n.to_string())),
            Scalar::I64(n) => Ok(Some(n.to_string())),
            Scalar::Other => Err(()),
            Scalar::Absent | Scalar::Null => Ok(None),
        }
    }
}

struct ScalarVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ScalarVisitor<'a> {
    type Value = Scalar<'a>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::U64(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(if v >= 0 {
            Scalar::U64(v as u64)
        } else {
            Scalar::I64(v)
        })
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor(std::marker::PhantomData))
    }
}

/// A post of `postlist`, the fields bansha reads.
#[derive(Debug, Deserialize)]
pub(crate) struct ApiPost<'a> {
    #[serde(borrow, default)]
    pub pid: Scalar<'a>,
    #[serde(borrow, default)]
    pub tid: Scalar<'a>,
    #[serde(borrow, default)]
    pub number: Scalar<'a>,
    #[serde(borrow, default)]
    pub anonymous: Scalar<'a>,
    #[serde(borrow, default)]
    pub author: Scalar<'a>,
    #[serde(borrow, default)]
    pub authorid: Scalar<'a>,
    #[serde(borrow, default)]
    pub dbdateline: Scalar<'a>,
    #[serde(borrow, default)]
    pub dateline: Scalar<'a>,
    #[serde(borrow, default)]
    pub status: Scalar<'a>,
    #[serde(borrow, default)]
    pub position: Scalar<'a>,
    #[serde(borrow, default)]
    pub first: Scalar<'a>,
    #[serde(borrow, default)]
    pub message: Scalar<'a>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Thread<'a> {
    #[serde(borrow, default)]
    pub tid: Scalar<'a>,
    #[serde(borrow, default)]
    pub subject: Scalar<'a>,
    #[serde(borrow, default)]
    pub replies: Scalar<'a>,
    #[serde(borrow, default)]
    pub ordertype: Scalar<'a>,
}

/// `postlist` as an array (the list keyed by pid is left to the `Value` path: its order there
/// is the keys').
#[derive(Debug)]
pub(crate) enum PostList<'a> {
    List(Vec<ApiPost<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for PostList<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = PostList<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a post list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(16));
                while let Some(p) = seq.next_element::<ApiPost<'a>>()? {
                    out.push(p);
                }
                Ok(PostList::List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(PostList::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(PostList::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(PostList::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(PostList::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(PostList::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(PostList::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(PostList::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct Vars<'a> {
    #[serde(borrow)]
    pub postlist: Option<PostList<'a>>,
    #[serde(borrow, default)]
    pub thread: Option<Thread<'a>>,
    #[serde(borrow, default)]
    pub ppp: Scalar<'a>,
    #[serde(borrow, default)]
    pub cache_custominfo_postno: Option<Vec<Scalar<'a>>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(borrow, default)]
    pub messageval: Scalar<'a>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Answer<'a> {
    #[serde(rename = "Version", borrow, default)]
    pub version: Scalar<'a>,
    #[serde(rename = "Variables", borrow)]
    pub variables: Option<Vars<'a>>,
    #[serde(rename = "Message", borrow)]
    pub message: Option<Message<'a>>,
    pub error: Option<IgnoredAny>,
}

/// The answer, when it is a plain successful page the typed path reads.
pub(crate) fn answer(text: &str) -> Option<Answer<'_>> {
    let a: Answer = serde_json::from_str(text).ok()?;
    if a.error.is_some() {
        return None;
    }
    if let Some(m) = &a.message {
        let val = m.messageval.string().ok()?.unwrap_or_default();
        if !val.ends_with("succeed") {
            return None;
        }
    }
    Some(a)
}
