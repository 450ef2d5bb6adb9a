pub struct Queue<T> {
    items: std::collections::VecDeque<T>,
    capacity: usize,
}

impl<T> Queue<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        Queue { items: Default::default(), capacity }
    }

    pub fn push(&mut self, item: T) -> Result<(), T> {
        if self.items.len() == self.capacity {
            return Err(item);
        }
        self.items.push_back(item);
        Ok(())
    }

    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_front()
    }
}
