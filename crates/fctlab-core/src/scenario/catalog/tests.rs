//! Every key of every scenario table is documented, every documented key is a
//! key of its table, and every default the catalogue states as a value is the
//! table's own.

use super::keys;
use super::*;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::collections::BTreeSet;
use std::fmt;

/// Stops a deserialisation once the struct has named its fields.
#[derive(Debug)]
struct Stop;
impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stop")
    }
}
impl std::error::Error for Stop {}
impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// A deserializer that records the field names a derived struct asks for.
struct FieldNames<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = Stop;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        *self.0 = fields;
        Err(Stop)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The keys a `#[derive(Deserialize)]` table accepts (serde's own list).
fn fields_of<T: for<'de> Deserialize<'de>>() -> BTreeSet<&'static str> {
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(FieldNames(&mut fields));
    assert!(
        !fields.is_empty(),
        "{} does not list its fields",
        std::any::type_name::<T>()
    );
    fields.iter().copied().collect()
}

fn documented(name: &str) -> BTreeSet<&'static str> {
    let s = SECTIONS.iter().find(|s| s.name == name).expect(name);
    let mut keys: BTreeSet<&'static str> = s.docs.iter().map(|d| d.key).collect();
    if name == "transport" {
        keys.extend(tcp_option_docs().iter().map(|o| o.key));
    }
    keys
}

#[test]
fn every_key_of_every_table_is_documented_and_no_other() {
    let sections: BTreeSet<&str> = ["network", "transport", "flows", "traffic", "metrics", "losses"].into();
    let run: BTreeSet<&str> = fields_of::<Scenario>().difference(&sections).copied().collect();
    let cases = [
        ("run", run),
        ("network", fields_of::<NetworkCfg>()),
        ("graph", fields_of::<LinkCfg>()),
        (
            "transport",
            // The TCP model options are set aside from the table and read as TcpOptions.
            fields_of::<TransportCfg>()
                .union(&fields_of::<crate::transport::tcp::TcpOptions>())
                .copied()
                .collect(),
        ),
        ("traffic", fields_of::<TrafficCfg>()),
        ("flows", fields_of::<FlowCfg>()),
        ("metrics", fields_of::<MetricsCfg>()),
        ("losses", fields_of::<LossCfg>()),
    ];
    for (name, mut keys) in cases {
        for (_, alias, key) in keys::ALIASES.iter().filter(|a| a.0 == name) {
            assert!(keys.remove(alias), "{name}: {alias} is no alias of the table");
            assert!(
                keys.contains(key),
                "{name}: {alias} is an alias of an unknown key {key}"
            );
        }
        let docs = documented(name);
        let undocumented: Vec<_> = keys.difference(&docs).collect();
        let unknown: Vec<_> = docs.difference(&keys).collect();
        assert!(
            undocumented.is_empty(),
            "{name}: keys without documentation: {undocumented:?}"
        );
        assert!(
            unknown.is_empty(),
            "{name}: documented keys the table does not have: {unknown:?}"
        );
    }
}

#[test]
fn the_field_list_catches_a_missing_key() {
    // The check above compares against serde's list: a key it did not hold
    // would be reported.
    let keys = fields_of::<LossCfg>();
    assert_eq!(keys, ["flow", "seq", "transmission"].into());
}

#[test]
fn defaults_stated_as_values_are_the_tables_and_text_hides_no_value() {
    for s in SECTIONS {
        let defaults = (s.defaults)();
        assert!(defaults.is_object(), "{}: no defaults", s.name);
        for d in s.docs {
            let own = defaults.get(d.key).filter(|v| !v.is_null());
            match d.default {
                Dflt::Code => assert!(own.is_some(), "{}{}: no default in its table", s.prefix, d.key),
                // A value applied by the scenario layer or a description: the
                // table itself leaves the key empty.
                Dflt::Applied(_) | Dflt::Text(_) => {
                    let required = matches!(d.default, Dflt::Text("required"));
                    assert!(
                        own.is_none() || required,
                        "{}{}: the table has the default {own:?}; document it as Code",
                        s.prefix,
                        d.key
                    )
                }
            }
            assert!(!d.meaning.is_empty(), "{}{}: no meaning", s.prefix, d.key);
        }
    }
}

#[test]
fn tcp_options_have_both_presets_values() {
    for o in tcp_option_docs() {
        let (rfc, ns3) = preset_values(o.key);
        let unset = rfc.is_null() || ns3.is_null();
        assert!(
            !unset || !o.unset.is_empty(),
            "{}: an unset default says what it stands for",
            o.key
        );
        assert!(!o.meaning.is_empty() && !o.source.is_empty(), "{}", o.key);
    }
}

#[test]
fn the_catalogue_lists_every_section_once() {
    let c = catalog();
    let names: Vec<&str> = c["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len());
    let n = c["parameters"].as_array().unwrap().len() + c["entry_parameters"].as_array().unwrap().len();
    let documented: usize = SECTIONS.iter().map(|s| s.docs.len()).sum::<usize>() + tcp_option_docs().len();
    assert_eq!(n, documented);
}
