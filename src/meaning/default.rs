//! The default a parameter's description states in prose ("Defaults to private").

/// The default a description states in prose: "Defaults to private", "(default: 30)", "Default is
/// merge", "descending by default". Lower-cased; `None` when no default is stated.
#[must_use]
pub fn stated_default(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+')))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        if w.trim_end_matches('.') == "default" || *w == "defaults" || *w == "defaulting" {
            // "X by default"
            if i >= 2 && words[i - 1] == "by" {
                return Some(words[i - 2].trim_end_matches('.').to_owned());
            }
            let mut j = i + 1;
            while j < words.len() && matches!(words[j], "to" | "is" | "value" | "of" | "the" | "be" | "will") {
                j += 1;
            }
            if let Some(v) = words.get(j) {
                return Some(v.trim_end_matches('.').to_owned());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_in_prose() {
        assert_eq!(stated_default("Visibility. Defaults to private.").as_deref(), Some("private"));
        assert_eq!(stated_default("Notify watchers (default: true).").as_deref(), Some("true"));
        assert_eq!(stated_default("Sort direction, descending by default.").as_deref(), Some("descending"));
        assert_eq!(stated_default("Merge method. Default is squash.").as_deref(), Some("squash"));
        assert_eq!(stated_default("The issue title."), None);
    }
}
