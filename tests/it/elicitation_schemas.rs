//! `#[derive(mcp::Elicitation)]`: the forms it derives are valid 2026-07-28 elicitation
//! requests (checked with the official schema), match committed snapshots, and name exactly what
//! serde reads back.

use mcp::__private::{ElicitationEnum, ElicitationField, FieldInfo};
use mcp::Elicitation;
use serde_json::{Value, json};

use crate::support::snapshot::assert_json_snapshot;

#[derive(Debug, PartialEq, serde::Deserialize, mcp::Elicitation)]
enum Region {
    /// Ireland
    #[serde(rename = "eu-west-1")]
    EuWest1,
    /// Virginia
    #[serde(rename = "us-east-1")]
    UsEast1,
}

#[derive(Debug, PartialEq, serde::Deserialize, mcp::Elicitation)]
#[serde(rename_all = "lowercase")]
enum Feature {
    Backups,
    Replicas,
    Metrics,
}

/// Where should the database live?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
#[allow(dead_code)]
struct Placement {
    region: Region,
    /// Optional extras.
    features: Vec<Feature>,
    /// Extra replicas.
    #[elicitation(default = 0)]
    replicas: u8,
    #[elicitation(title = "Contact e-mail", format = "email")]
    contact: Option<String>,
    ratio: f64,
    confirmed: bool,
    #[serde(rename = "displayName")]
    display_name: String,
}

#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
#[elicitation(message = "Confirm the deployment?")]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Confirm {
    really_deploy: bool,
}

fn official_form_validator() -> jsonschema::Validator {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/schema-2026-07-28.json");
    let mut schema: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the official schema"))
            .expect("json");
    schema["$ref"] = json!("#/$defs/ElicitRequestFormParams");
    jsonschema::validator_for(&schema).expect("a valid schema")
}

fn form<T: Elicitation>() -> Value {
    json!({"mode": "form", "message": T::MESSAGE, "requestedSchema": T::requested_schema()})
}

#[test]
fn derived_forms_are_valid_elicitation_requests_and_match_snapshots() {
    let validator = official_form_validator();
    let forms = json!({"Placement": form::<Placement>(), "Confirm": form::<Confirm>()});
    for (name, params) in forms.as_object().expect("object") {
        let errors: Vec<String> = validator
            .iter_errors(params)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
    assert_json_snapshot("elicitation_forms", &forms);
}

#[test]
fn an_answer_filled_from_the_schema_deserializes() {
    let schema = Placement::requested_schema();
    let region = schema["properties"]["region"]["oneOf"][1]["const"].clone();
    let feature = schema["properties"]["features"]["items"]["enum"][2].clone();
    let answer = json!({
        "region": region, "features": [feature], "replicas": 2, "ratio": 0.5,
        "confirmed": true, "displayName": "Orders",
    });
    let placement: Placement = serde_json::from_value(answer).expect("serde reads the names");
    assert_eq!(placement.region, Region::UsEast1);
    assert_eq!(placement.features, vec![Feature::Metrics]);
    let confirm: Confirm = serde_json::from_value(json!({
        Confirm::requested_schema()["required"][0].as_str().expect("name"): true
    }))
    .expect("camelCase");
    assert!(confirm.really_deploy);
}

macro_rules! rename_rule_matches_serde {
    ($($test:ident: $rule:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            #[derive(Debug, PartialEq, serde::Deserialize, mcp::Elicitation)]
            #[serde(rename_all = $rule)]
            enum Choice {
                EuWest1,
                HTTPServer,
                Plain,
            }
            let expected = [Choice::EuWest1, Choice::HTTPServer, Choice::Plain];
            for (choice, variant) in Choice::CHOICES.iter().zip(expected) {
                let read: Choice = serde_json::from_value(json!(choice.value))
                    .unwrap_or_else(|e| panic!("{} under {}: {e}", choice.value, $rule));
                assert_eq!(read, variant);
            }

            #[derive(Debug, serde::Deserialize, mcp::Elicitation)]
            #[serde(rename_all = $rule)]
            /// Fields.
            struct Form {
                first_field: u8,
                x: u8,
            }
            let schema = Form::requested_schema();
            let mut answer = serde_json::Map::new();
            for name in schema["properties"].as_object().expect("properties").keys() {
                answer.insert(name.clone(), json!(1));
            }
            let form: Form = serde_json::from_value(Value::Object(answer))
                .unwrap_or_else(|e| panic!("fields under {}: {e}", $rule));
            assert_eq!((form.first_field, form.x), (1, 1));
        }
    )*};
}

rename_rule_matches_serde!(
    lowercase: "lowercase",
    uppercase: "UPPERCASE",
    pascal: "PascalCase",
    camel: "camelCase",
    snake: "snake_case",
    screaming_snake: "SCREAMING_SNAKE_CASE",
    kebab: "kebab-case",
    screaming_kebab: "SCREAMING-KEBAB-CASE",
);

#[test]
fn optional_and_multi_select_fields_have_their_shapes() {
    const { assert!(!<Option<String> as ElicitationField>::REQUIRED) };
    let multi = <Vec<Feature> as ElicitationField>::field_schema(FieldInfo::default());
    assert_eq!(
        multi,
        json!({"type": "array", "items": {"type": "string",
        "enum": ["backups", "replicas", "metrics"]}})
    );
}
