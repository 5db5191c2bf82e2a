//! One merge of two sequences sorted by the same key (two snapshots' or locks' name-ordered maps):
//! each key once, with the item of each side that has it. Linear, one comparison per step, where a
//! lookup per key in the other map compares a dozen long names.

use std::cmp::Ordering;
use std::iter::Peekable;

/// A key of [`join`]: on the left only, on the right only, or on both sides.
#[derive(Debug, PartialEq, Eq)]
pub enum Joined<L, R> {
    Left(L),
    Right(R),
    Both(L, R),
}

/// The merge of `left` and `right`, each strictly ascending by `key`, in key order.
pub fn join<K, L, R, F, G>(left: L, right: R, key_l: F, key_r: G) -> Join<L, R, F, G>
where
    L: Iterator,
    R: Iterator,
    K: Ord + ?Sized,
    F: Fn(&L::Item) -> &K,
    G: Fn(&R::Item) -> &K,
{
    Join { left: left.peekable(), right: right.peekable(), key_l, key_r }
}

/// See [`join`].
pub struct Join<L: Iterator, R: Iterator, F, G> {
    left: Peekable<L>,
    right: Peekable<R>,
    key_l: F,
    key_r: G,
}

impl<K, L, R, F, G> Iterator for Join<L, R, F, G>
where
    L: Iterator,
    R: Iterator,
    K: Ord + ?Sized,
    F: Fn(&L::Item) -> &K,
    G: Fn(&R::Item) -> &K,
{
    type Item = Joined<L::Item, R::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        let order = match (self.left.peek(), self.right.peek()) {
            (Some(l), Some(r)) => (self.key_l)(l).cmp((self.key_r)(r)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => return None,
        };
        match order {
            Ordering::Less => self.left.next().map(Joined::Left),
            Ordering::Greater => self.right.next().map(Joined::Right),
            Ordering::Equal => self.left.next().zip(self.right.next()).map(|(l, r)| Joined::Both(l, r)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_once_in_order_with_its_sides() {
        let left = [("a", 1), ("c", 3), ("d", 4), ("f", 6)];
        let right = [("b", 20), ("c", 30), ("f", 60), ("g", 70)];
        let joined: Vec<Joined<i32, i32>> = join(left.iter(), right.iter(), |x| x.0, |x| x.0)
            .map(|s| match s {
                Joined::Left(l) => Joined::Left(l.1),
                Joined::Right(r) => Joined::Right(r.1),
                Joined::Both(l, r) => Joined::Both(l.1, r.1),
            })
            .collect();
        assert_eq!(
            joined,
            [
                Joined::Left(1),
                Joined::Right(20),
                Joined::Both(3, 30),
                Joined::Left(4),
                Joined::Both(6, 60),
                Joined::Right(70)
            ]
        );
        assert_eq!(join(left.iter(), [].iter(), |x| x.0, |x: &&(&str, i32)| x.0).count(), 4);
        assert_eq!(join([].iter(), right.iter(), |x: &&(&str, i32)| x.0, |x| x.0).count(), 4);
    }
}
