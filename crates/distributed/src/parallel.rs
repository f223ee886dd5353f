//! The islands of each backend of a placement worked on side by side: one host thread per backend, the
//! islands of a backend in turn.

use evo_core::Result;

/// One group's items with their indices, in index order.
type Group<'a, T> = Vec<(usize, &'a mut T)>;

/// Runs `per_group` on every group of `items` (item `i` in group `i mod groups`, in index order): the groups
/// side by side, one scoped thread each, or on the calling thread when there is one group. Returns the
/// outcomes of every item in item order. A panic in `per_group` is resumed on the calling thread.
fn run_grouped<T, R, W>(items: &mut [T], groups: usize, per_group: W) -> Vec<R>
where
    T: Send,
    R: Send,
    W: Fn(Group<'_, T>) -> Vec<(usize, R)> + Sync,
{
    let count = groups.max(1);
    let mut grouped: Vec<Group<'_, T>> = (0..count).map(|_| Vec::new()).collect();
    for (i, item) in items.iter_mut().enumerate() {
        grouped[i % count].push((i, item));
    }
    let mut outcomes: Vec<(usize, R)> = if count == 1 {
        grouped.into_iter().flat_map(&per_group).collect()
    } else {
        let per_group = &per_group;
        std::thread::scope(|scope| {
            let handles: Vec<_> = grouped
                .into_iter()
                .map(|group| scope.spawn(move || per_group(group)))
                .collect();
            handles
                .into_iter()
                .flat_map(|handle| {
                    handle
                        .join()
                        .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
                })
                .collect()
        })
    };
    outcomes.sort_unstable_by_key(|(i, _)| *i);
    outcomes.into_iter().map(|(_, outcome)| outcome).collect()
}

/// Runs `work(i, &mut items[i])` for every item, item `i` in group `i mod groups`: the groups side by side
/// (one scoped thread each; none when there is one group), the items of a group in index order. Returns the
/// results in item order, or the error of the lowest-numbered failed item (every item is worked on, so the
/// error returned does not depend on timing). A panic in `work` is resumed on the calling thread.
pub(crate) fn for_each_grouped<T, R, F>(items: &mut [T], groups: usize, work: F) -> Result<Vec<R>>
where
    T: Send,
    R: Send,
    F: Fn(usize, &mut T) -> Result<R> + Sync,
{
    run_grouped(items, groups, |group| {
        group
            .into_iter()
            .map(|(i, item)| (i, work(i, item)))
            .collect()
    })
    .into_iter()
    .collect()
}

/// [`for_each_grouped`] in two passes per group: `first` on every item of a group in index order, then
/// `second` on each item whose `first` succeeded; one host thread per group for both passes. An item's
/// result is its `first` error or else its `second` outcome; the error of the lowest-numbered failed item
/// is returned.
pub(crate) fn for_each_grouped_in_two_passes<T, F, G>(
    items: &mut [T],
    groups: usize,
    first: F,
    second: G,
) -> Result<()>
where
    T: Send,
    F: Fn(&mut T) -> Result<()> + Sync,
    G: Fn(&mut T) -> Result<()> + Sync,
{
    run_grouped(items, groups, |mut group| {
        let started: Vec<Result<()>> = group.iter_mut().map(|(_, item)| first(item)).collect();
        group
            .into_iter()
            .zip(started)
            .map(|((i, item), started)| (i, started.and_then(|()| second(item))))
            .collect()
    })
    .into_iter()
    .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_core::Error;

    #[test]
    fn results_come_back_in_item_order_whatever_the_grouping() {
        for groups in 1..=5 {
            let mut items: Vec<u64> = (0..7).collect();
            let squares = for_each_grouped(&mut items, groups, |i, x| {
                *x += 1;
                Ok((i, *x * *x))
            })
            .unwrap();
            let expected: Vec<(usize, u64)> = (0..7).map(|i| (i, (i as u64 + 1).pow(2))).collect();
            assert_eq!(squares, expected, "{groups} groups");
            assert_eq!(items, [1, 2, 3, 4, 5, 6, 7]);
        }
    }

    #[test]
    fn the_lowest_numbered_error_wins_and_every_item_is_worked_on() {
        for groups in 1..=3 {
            let mut items = vec![0u32; 6];
            let error = for_each_grouped(&mut items, groups, |i, x| {
                *x = 1;
                if i == 2 || i == 4 {
                    Err(Error::invalid_parameter("test", "item", i, "not 2 or 4"))
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
            assert!(error.to_string().contains("got 2"), "{error}");
            assert_eq!(items, [1; 6], "{groups} groups");
        }
    }

    #[test]
    fn two_passes_start_every_item_of_a_group_before_finishing_any() {
        use std::sync::Mutex;
        for groups in 1..=3 {
            let log = Mutex::new(Vec::new());
            let mut items: Vec<usize> = (0..5).collect();
            for_each_grouped_in_two_passes(
                &mut items,
                groups,
                |item| {
                    log.lock().unwrap().push(("start", *item));
                    Ok(())
                },
                |item| {
                    log.lock().unwrap().push(("finish", *item));
                    Ok(())
                },
            )
            .unwrap();
            let log = log.into_inner().unwrap();
            for group in 0..groups {
                let mine: Vec<_> = log.iter().filter(|(_, i)| i % groups == group).collect();
                let starts = mine.iter().take_while(|(pass, _)| *pass == "start").count();
                assert_eq!(starts * 2, mine.len(), "{groups} groups: {mine:?}");
            }
        }
    }

    #[test]
    fn an_item_that_fails_to_start_is_not_finished_and_the_lowest_error_wins() {
        for groups in 1..=3 {
            let mut finished = vec![false; 6];
            let mut items: Vec<(usize, &mut bool)> = finished.iter_mut().enumerate().collect();
            let error = for_each_grouped_in_two_passes(
                &mut items,
                groups,
                |(i, _)| {
                    if *i == 4 {
                        Err(Error::invalid_parameter("test", "item", *i, "not 4"))
                    } else {
                        Ok(())
                    }
                },
                |(i, done)| {
                    **done = true;
                    if *i == 3 {
                        Err(Error::invalid_parameter("test", "item", *i, "not 3"))
                    } else {
                        Ok(())
                    }
                },
            )
            .unwrap_err();
            assert!(error.to_string().contains("got 3"), "{error}");
            assert_eq!(
                finished,
                [true, true, true, true, false, true],
                "{groups} groups"
            );
        }
    }
}
