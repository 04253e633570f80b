//! Builds DynamoDB expressions from the store's conditions and updates.
//!
//! Every attribute name and value goes through a placeholder (`#n0`, `:v0`, ...),
//! so user strings never become expression syntax and reserved words need no care.

use std::collections::HashMap;

use alyt_store::{CmpOp, Condition, SortKey, UpdateAction, attr};
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::Value;

use crate::codec::{to_attr, type_tag};

#[derive(Debug, Default)]
pub(crate) struct Expr {
    names: HashMap<String, String>,
    placeholders: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

/// How a query's sort-key condition is sent.
enum SortPlan {
    /// No item can match; skip the request.
    Nothing,
    /// Every sort key matches.
    All,
    Expression(String),
}

impl Expr {
    pub(crate) fn name(&mut self, name: &str) -> String {
        if let Some(placeholder) = self.placeholders.get(name) {
            return placeholder.clone();
        }
        let placeholder = format!("#n{}", self.names.len());
        self.names.insert(placeholder.clone(), name.to_owned());
        self.placeholders
            .insert(name.to_owned(), placeholder.clone());
        placeholder
    }

    pub(crate) fn value(&mut self, value: AttributeValue) -> String {
        let placeholder = format!(":v{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    fn string(&mut self, s: &str) -> String {
        self.value(AttributeValue::S(s.to_owned()))
    }

    /// `None` when empty: DynamoDB rejects empty maps.
    pub(crate) fn names(&self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| self.names.clone())
    }

    pub(crate) fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }

    /// A constant, for the cases an expression cannot state directly (empty
    /// And/Or, ordering against a value that never orders).
    fn constant(&mut self, holds: bool) -> String {
        let pk = self.name(attr::PK);
        if holds {
            format!("(attribute_exists({pk}) OR attribute_not_exists({pk}))")
        } else {
            format!("(attribute_exists({pk}) AND attribute_not_exists({pk}))")
        }
    }

    /// Renders a condition with the semantics of `Condition::evaluate`. Comparisons
    /// carry an explicit `attribute_type` guard: that makes a missing attribute or
    /// a type mismatch false by construction instead of relying on the engine
    /// (moto, for one, holds `missing <> v` and `missing = NULL`, and answers
    /// `N < S` with a server error).
    pub(crate) fn condition(&mut self, condition: &Condition) -> String {
        match condition {
            Condition::Exists(a) => format!("attribute_exists({})", self.name(a)),
            Condition::NotExists(a) => format!("attribute_not_exists({})", self.name(a)),
            Condition::Cmp(a, op, v) => self.comparison(a, *op, v),
            Condition::BeginsWith(a, prefix) => {
                let n = self.name(a);
                if prefix.is_empty() {
                    // Every string begins with ""; DynamoDB may reject an empty operand.
                    let t = self.string("S");
                    format!("attribute_type({n}, {t})")
                } else {
                    let p = self.string(prefix);
                    format!("begins_with({n}, {p})")
                }
            }
            Condition::And(all) => self.join(all, "AND", true),
            Condition::Or(any) => self.join(any, "OR", false),
            Condition::Not(inner) => format!("(NOT {})", self.condition(inner)),
        }
    }

    fn join(&mut self, parts: &[Condition], op: &str, empty: bool) -> String {
        if parts.is_empty() {
            return self.constant(empty);
        }
        let rendered: Vec<String> = parts.iter().map(|c| self.condition(c)).collect();
        format!("({})", rendered.join(&format!(" {op} ")))
    }

    fn comparison(&mut self, a: &str, op: CmpOp, v: &Value) -> String {
        let orderable = matches!(v, Value::Number(_) | Value::String(_));
        let symbol = match op {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        };
        match op {
            CmpOp::Eq | CmpOp::Ne => {
                let n = self.name(a);
                let t = self.string(type_tag(v));
                let same_type = format!("attribute_type({n}, {t})");
                // NULL equals NULL: the type test alone says it (and no NULL operand
                // is ever compared).
                let compared =
                    (!v.is_null()).then(|| format!("{n} {symbol} {}", self.value(to_attr(v))));
                match (op, compared) {
                    (CmpOp::Eq, None) => same_type,
                    (CmpOp::Eq, Some(eq)) => format!("({same_type} AND {eq})"),
                    // Values of another type are unequal; the guard also keeps an
                    // engine from comparing across types.
                    (_, None) => format!("(attribute_exists({n}) AND NOT {same_type})"),
                    (_, Some(ne)) => {
                        format!("(attribute_exists({n}) AND (NOT {same_type} OR {ne}))")
                    }
                }
            }
            _ if !orderable => self.constant(false),
            _ => {
                let n = self.name(a);
                let t = self.string(type_tag(v));
                let val = self.value(to_attr(v));
                format!("(attribute_type({n}, {t}) AND {n} {symbol} {val})")
            }
        }
    }

    /// `SET a = :v, b = if_not_exists(b, :w) REMOVE c ADD d :n`.
    pub(crate) fn update(&mut self, actions: &[UpdateAction]) -> String {
        let mut set = Vec::new();
        let mut remove = Vec::new();
        let mut add = Vec::new();
        for action in actions {
            match action {
                UpdateAction::Set(a, v) => {
                    let (n, val) = (self.name(a), self.value(to_attr(v)));
                    set.push(format!("{n} = {val}"));
                }
                UpdateAction::SetIfAbsent(a, v) => {
                    let (n, val) = (self.name(a), self.value(to_attr(v)));
                    set.push(format!("{n} = if_not_exists({n}, {val})"));
                }
                UpdateAction::Remove(a) => remove.push(self.name(a)),
                UpdateAction::Add(a, delta) => {
                    let (n, val) = (
                        self.name(a),
                        self.value(AttributeValue::N(delta.to_string())),
                    );
                    add.push(format!("{n} {val}"));
                }
            }
        }
        let mut clauses = Vec::new();
        for (keyword, parts) in [("SET", set), ("REMOVE", remove), ("ADD", add)] {
            if !parts.is_empty() {
                clauses.push(format!("{keyword} {}", parts.join(", ")));
            }
        }
        clauses.join(" ")
    }

    /// The key condition of a query: partition equality plus the sort condition.
    /// Empty operands and inverted ranges, which DynamoDB rejects, are resolved
    /// here to what the embedded adapter answers (keys are never empty).
    pub(crate) fn key_condition(
        &mut self,
        pk_attr: &str,
        sk_attr: &str,
        partition: &str,
        sort: Option<&SortKey>,
    ) -> Option<String> {
        let p = self.name(pk_attr);
        let pv = self.string(partition);
        let partition_cond = format!("{p} = {pv}");
        let plan = match sort {
            None => SortPlan::All,
            Some(sort) => self.sort_condition(sk_attr, sort),
        };
        match plan {
            SortPlan::Nothing => None,
            SortPlan::All => Some(partition_cond),
            SortPlan::Expression(s) => Some(format!("{partition_cond} AND {s}")),
        }
    }

    fn sort_condition(&mut self, sk_attr: &str, sort: &SortKey) -> SortPlan {
        let cmp = |this: &mut Self, op: &str, v: &str| {
            let n = this.name(sk_attr);
            let val = this.string(v);
            SortPlan::Expression(format!("{n} {op} {val}"))
        };
        match sort {
            SortKey::Eq(v) | SortKey::Lt(v) | SortKey::Le(v) if v.is_empty() => SortPlan::Nothing,
            SortKey::Gt(v) | SortKey::Ge(v) | SortKey::BeginsWith(v) if v.is_empty() => {
                SortPlan::All
            }
            SortKey::Eq(v) => cmp(self, "=", v),
            SortKey::Lt(v) => cmp(self, "<", v),
            SortKey::Le(v) => cmp(self, "<=", v),
            SortKey::Gt(v) => cmp(self, ">", v),
            SortKey::Ge(v) => cmp(self, ">=", v),
            SortKey::BeginsWith(prefix) => {
                let n = self.name(sk_attr);
                let val = self.string(prefix);
                SortPlan::Expression(format!("begins_with({n}, {val})"))
            }
            SortKey::Between(lo, hi) if lo.as_bytes() > hi.as_bytes() || hi.is_empty() => {
                SortPlan::Nothing
            }
            SortKey::Between(lo, hi) if lo.is_empty() => cmp(self, "<=", hi),
            SortKey::Between(lo, hi) => {
                let n = self.name(sk_attr);
                let (a, b) = (self.string(lo), self.string(hi));
                SortPlan::Expression(format!("{n} BETWEEN {a} AND {b}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(c: &Condition) -> (String, Expr) {
        let mut e = Expr::default();
        let s = e.condition(c);
        (s, e)
    }

    #[test]
    fn user_strings_only_appear_as_placeholders() {
        let (s, e) = render(&Condition::eq("a) OR (b", "x' OR 1=1").and(Condition::exists("c")));
        assert!(!s.contains("a) OR (b") && !s.contains("1=1"), "{s}");
        assert_eq!(e.names().unwrap()["#n0"], "a) OR (b");
    }

    #[test]
    fn comparisons_are_type_guarded() {
        let (s, _) = render(&Condition::lt("step", 11));
        assert_eq!(s, "(attribute_type(#n0, :v0) AND #n0 < :v1)");
        let (s, _) = render(&Condition::ne("step", 3));
        assert_eq!(
            s,
            "(attribute_exists(#n0) AND (NOT attribute_type(#n0, :v0) OR #n0 <> :v1))"
        );
        let (s, e) = render(&Condition::eq("x", json!(null)));
        assert_eq!(s, "attribute_type(#n0, :v0)");
        assert_eq!(e.values().unwrap()[":v0"], AttributeValue::S("NULL".into()));
    }

    #[test]
    fn every_placeholder_is_used() {
        // DynamoDB rejects unused placeholders.
        for c in [
            Condition::lt("a", true),
            Condition::And(vec![]),
            Condition::Or(vec![]),
            Condition::ne("a", json!(null)),
            Condition::BeginsWith("a".into(), String::new()),
            Condition::Not(Box::new(Condition::eq("a", 1).or(Condition::gt("b", "x")))),
        ] {
            let (s, e) = render(&c);
            for p in e
                .names()
                .unwrap_or_default()
                .keys()
                .chain(e.values().unwrap_or_default().keys())
            {
                assert!(s.contains(p.as_str()), "{p} unused in {s}");
            }
        }
    }

    #[test]
    fn update_expression_groups_clauses() {
        let mut e = Expr::default();
        let s = e.update(&[
            UpdateAction::Add("count".into(), 1),
            UpdateAction::Set("state".into(), json!("x")),
            UpdateAction::Remove("gone".into()),
            UpdateAction::SetIfAbsent("first".into(), json!(1)),
        ]);
        assert_eq!(
            s,
            "SET #n1 = :v1, #n3 = if_not_exists(#n3, :v2) REMOVE #n2 ADD #n0 :v0"
        );
    }

    #[test]
    fn degenerate_sort_conditions_resolve_locally() {
        let mut e = Expr::default();
        assert!(
            e.key_condition("pk", "sk", "P", Some(&SortKey::Eq(String::new())))
                .is_none()
        );
        let between = SortKey::Between("b".into(), "a".into());
        assert!(e.key_condition("pk", "sk", "P", Some(&between)).is_none());
        let mut e = Expr::default();
        let all = e.key_condition("pk", "sk", "P", Some(&SortKey::BeginsWith(String::new())));
        assert_eq!(all.as_deref(), Some("#n0 = :v0"));
    }
}
