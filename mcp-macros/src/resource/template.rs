//! The URI template grammar resource templates accept, checked at compile time: literal text
//! with `{name}` and `{+name}` expressions, never two expressions side by side. The runtime's
//! matcher (`UriTemplate`) accepts exactly this grammar.

/// The variables of `template`, or why it is not one.
pub fn variables(template: &str) -> Result<Vec<String>, &'static str> {
    let mut variables = Vec::new();
    let mut rest = template;
    let mut last_was_variable = false;
    while let Some(open) = rest.find('{') {
        if rest[..open].contains('}') {
            return Err("a `}` has no matching `{`");
        }
        if open == 0 && last_was_variable {
            return Err("two expressions need literal text between them");
        }
        let close = rest[open..]
            .find('}')
            .ok_or("an expression is not closed")?;
        let expression = &rest[open + 1..open + close];
        let name = expression.strip_prefix('+').unwrap_or(expression);
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err("only `{name}` and `{+name}` expressions are supported");
        }
        if variables.iter().any(|v| v == name) {
            return Err("a variable appears twice");
        }
        variables.push(name.to_owned());
        rest = &rest[open + close + 1..];
        last_was_variable = true;
    }
    if rest.contains('}') {
        return Err("a `}` has no matching `{`");
    }
    Ok(variables)
}
