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
    /// When `this` had no links as the transaction began (a new instance): the links out of it
    /// the actions have written so far, held here until [`Runner::flush`]. A removal out of
    /// `this` then takes from them alone, so a constructor's default that a setter replaces
    /// (`setSingleTarget` twice) never reaches the store: one insert where there were two and a
    /// delete.
    pending: Option<Vec<NewLink>>,
}

impl<'t, 'a> Runner<'t, 'a> {
    pub fn new(tx: &'t mut (dyn WriteTx + 'a), perspective: &'t str, this: &'t str) -> Self {
        Runner {
            tx,
            perspective,
            this,
            links_added: 0,
            links_removed: 0,
            pending: None,
        }
    }

    /// The same, for a `this` the caller saw without links in this transaction: its links are
    /// written by [`Runner::flush`], which the caller must call before the transaction reads
    /// them or commits.
    pub fn on_fresh_node(mut self) -> Self {
        self.pending = Some(Vec::new());
        self
    }

    /// Writes the links out of a fresh `this` that the actions left, in the order written.
    pub fn flush(&mut self) -> Result<(), StoreError> {
        for link in self.pending.as_mut().map(std::mem::take).unwrap_or_default() {
            self.tx.add_link(self.perspective, link)?;
        }
        Ok(())
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
        let link = NewLink {
            source: source.to_string(),
            predicate: predicate.to_string(),
            target: target.to_string(),
            local,
        };
        match self.pending.as_mut().filter(|_| source == self.this) {
            Some(pending) => pending.push(link),
            None => {
                self.tx.add_link(self.perspective, link)?;
            }
        }
        self.links_added += 1;
        Ok(())
    }

    pub fn remove(&mut self, source: &str, predicate: &str, target: Option<&str>) -> Result<u64, StoreError> {
        if let Some(pending) = self.pending.as_mut().filter(|_| source == self.this) {
            let before = pending.len();
            pending.retain(|link| !(link.predicate == predicate && target.is_none_or(|t| t == link.target)));
            let n = (before - pending.len()) as u64;
            self.links_removed += n;
            return Ok(n);
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
