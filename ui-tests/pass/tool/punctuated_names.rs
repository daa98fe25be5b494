//! Wire names that differ only in punctuation are two arguments, each in the schema.

#[mcp::tool]
async fn pair(#[mcp(rename = "a-b")] dashed: u8, a_b: u8) -> String {
    format!("{dashed} {a_b}")
}

fn main() {
    let [entry] = mcp::tools![pair];
    let schema = serde_json::to_value(&*entry.tool().input_schema).expect("a schema");
    let names: Vec<&String> = schema["properties"].as_object().expect("properties").keys().collect();
    assert_eq!(names, ["a-b", "a_b"], "{schema}");
}
