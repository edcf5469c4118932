//! Running link actions (constructors, setters, adders, removers, destructors, execute_commands)
//! inside one write transaction, with the substitution rules of docs/dna-format.md (Actions).

use shacl_mcp_compiler::model::{Action, ActionKind};

use crate::store::{LinkPattern, NewLink, StoreError, WriteTx};

/// Runs actions for one node (`this`) in one transaction and counts what they did.
pub(crate) struct Runner<'t, 'a> {
    pub tx: &'t mut (dyn WriteTx + 'a),
    pub perspective: &'t str,
    pub this: &'t str,
    pub links_added: u64,
    pub links_removed: u64,
    /// When `this` had no links as the transaction began (a new instance): the `(predicate,
    /// target)` of every link out of it written since. A removal out of `this` that matches
    /// none of them has nothing to remove and is not sent to the store.
    fresh: Option<Vec<(String, String)>>,
}

impl<'t, 'a> Runner<'t, 'a> {
    pub fn new(tx: &'t mut (dyn WriteTx + 'a), perspective: &'t str, this: &'t str) -> Self {
        Runner {
            tx,
            perspective,
            this,
            links_added: 0,
            links_removed: 0,
            fresh: None,
        }
    }

    /// The same, for a `this` the caller saw without links in this transaction.
    pub fn on_fresh_node(mut self) -> Self {
        self.fresh = Some(Vec::new());
        self
    }

    /// Runs `action`. `target_of` resolves a target that is neither `this` nor a constant
    /// (`value`, or a property name in a constructor); `None` skips the action.
    pub fn run(&mut self, action: &Action, target_of: &dyn Fn(&str) -> Option<String>) -> Result<bool, StoreError> {
        let source = if action.source == "this" {
            self.this.to_string()
        } else {
            action.source.clone()
        };
        let target = match action.target.as_str() {
            "this" => self.this.to_string(),
            t if t.contains(':') => t.to_string(),
            t => match target_of(t) {
                Some(resolved) => resolved,
                None => return Ok(false),
            },
        };
        match action.kind {
            ActionKind::AddLink => self.add(&source, &action.predicate, &target, action.local)?,
            ActionKind::RemoveLink => {
                self.remove(&source, &action.predicate, Some(&target))?;
            }
            ActionKind::SetSingleTarget => {
                self.remove(&source, &action.predicate, None)?;
                self.add(&source, &action.predicate, &target, action.local)?;
            }
        }
        Ok(true)
    }

    pub fn add(&mut self, source: &str, predicate: &str, target: &str, local: bool) -> Result<(), StoreError> {
        self.tx.add_link(
            self.perspective,
            NewLink {
                source: source.to_string(),
                predicate: predicate.to_string(),
                target: target.to_string(),
                local,
            },
        )?;
        self.links_added += 1;
        if let Some(written) = self.fresh.as_mut().filter(|_| source == self.this) {
            written.push((predicate.to_string(), target.to_string()));
        }
        Ok(())
    }

    pub fn remove(&mut self, source: &str, predicate: &str, target: Option<&str>) -> Result<u64, StoreError> {
        let matches = |(p, t): &(String, String)| p == predicate && target.is_none_or(|target| target == t);
        if let Some(written) = self.fresh.as_mut().filter(|_| source == self.this) {
            if !written.iter().any(matches) {
                return Ok(0);
            }
            written.retain(|link| !matches(link));
        }
        let pattern = LinkPattern {
            source: Some(source),
            predicate: Some(predicate),
            target,
        };
        let n = self.tx.remove_links(self.perspective, pattern)?;
        self.links_removed += n;
        Ok(n)
    }
}
